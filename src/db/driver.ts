// What needs tedious at run time, in one module: loaded on first use (see loadDriver.ts), so activating the
// extension or running `analyze` never parses the driver (tedious, its Azure identity and encoding libraries).
export { connect } from './connect';
export { fetchServerCertificate } from './certificate';
export { TediousSession } from './session';
export { runWorkload } from './workload';
