// VS Code turns `[label](target)` in a notification's message into a link — target https://, command: (with
// arguments) or file: — and opens it with command links allowed (the workbench's notification renderer:
// openerService.open(URI.parse(link), { allowCommands: true }); its pattern is below). A server's error message, a
// database or routine name, or a file's text inside one of our notifications could so offer "[Grant it](command:…)"
// that runs any command — a terminal's sendSequence included — as if Durability Lens proposed it. Such text is made
// inert where it enters a message: `](` becomes `] (`, which no link matches and which still reads the same.

/** VS Code's linked-text pattern (src/vs/base/common/linkedText.ts), for tests that check nothing is a link. */
export const NOTIFICATION_LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;

/** `text` with every `](` opened up, so no part of it becomes a link in a notification. */
export function inertLinks(text: string): string {
  return text.replace(/\]\(/g, '] (');
}
