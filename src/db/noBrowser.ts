// Stands in for the `open` package in the bundles (webpack.config.js resolves `open` here). Only @azure/identity's
// interactive browser sign-in imports it, and none of the authentication types Durability Lens offers is interactive
// (tedious's azure-active-directory-* types and token-credential with non-interactive credentials). The package itself
// would bake the build machine's path into the bundle (it finds its own `xdg-open` script through import.meta.url,
// which webpack replaces with that path at build time) and, on Linux, run a script found at that path.
export default async function open(): Promise<never> {
  throw new Error('Durability Lens does not open a web browser to sign in: use a Microsoft Entra type that signs in without one (default credential chain, service principal, managed identity, password).');
}
