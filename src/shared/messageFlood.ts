// A bound on how many workload messages (PRINT / RAISERROR) are echoed to a log: a loop that PRINTs a million times
// must not flood the output channel or the terminal. The run itself keeps counting them (BatchReport.messageCount).

/** Messages echoed per run; later ones are counted and summarised once. */
export const MAX_ECHOED_MESSAGES = 1000;

/** Wraps `write`: the first `limit` messages pass, then one line says the rest are not shown. */
export function limitMessages<T>(write: (message: T) => void, note: (text: string) => void, limit = MAX_ECHOED_MESSAGES): (message: T) => void {
  let seen = 0;
  return (message) => {
    seen++;
    if (seen <= limit) write(message);
    else if (seen === limit + 1) note(`… more than ${limit} messages: the rest are not shown here (the run still counts them).`);
  };
}
