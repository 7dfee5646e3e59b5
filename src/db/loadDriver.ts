// Loads the tedious-backed half of the db layer on first use. Bundled, it is its own chunk
// (dist/<bundle>.driver.js): the extension's activation and the CLI's `analyze` never load it.
import type * as DriverModule from './driver';

export type Driver = typeof DriverModule;

let loading: Promise<Driver> | undefined;
let loaded: Driver | undefined;

/** The driver module, loaded once; later calls share the same promise. */
export function loadDriver(): Promise<Driver> {
  loading ??= import(/* webpackChunkName: "driver" */ './driver').then((driver) => (loaded = driver));
  return loading;
}

/** The driver if something already loaded it (a session exists only after it was), else undefined. */
export function loadedDriver(): Driver | undefined {
  return loaded;
}
