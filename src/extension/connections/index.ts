// Connections: the saved profiles (passwords in SecretStorage), the active connection and its database, the
// certificate-trust and clear-text prompts, and the connection commands. What other folders of the extension use.
export { registerConnectionCommands } from './connectionCommands';
export { ConnectionManager, type ActiveConnection } from './connectionManager';
export { ConnectionStore } from './connectionStore';
