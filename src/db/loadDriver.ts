// Loads the tedious-backed half of the db layer on first use. Bundled, it is its own chunk
// (dist/<bundle>.driver.js): the extension's activation and the CLI's `analyze` never load it.
import type * as DriverModule from './driver';

export type Driver = typeof DriverModule;

export interface Loader<T> {
  /** The module, loaded once; concurrent calls share one load. A failed load is not kept: the next call tries again. */
  load(): Promise<T>;
  /** The module if a load already succeeded, else undefined. */
  loaded(): T | undefined;
}

export function createLoader<T>(importer: () => Promise<T>): Loader<T> {
  let loading: Promise<T> | undefined;
  let loaded: T | undefined;
  return {
    load() {
      loading ??= importer().then(
        (module) => (loaded = module),
        (err: unknown) => {
          // A chunk that failed to load once (a file replaced during an update) need not fail for the whole session.
          loading = undefined;
          throw err;
        },
      );
      return loading;
    },
    loaded: () => loaded,
  };
}

const driver = createLoader<Driver>(() => import(/* webpackChunkName: "driver" */ './driver'));

/** The driver module, loaded once; later calls share the same promise. */
export function loadDriver(): Promise<Driver> {
  return driver.load();
}

/** The driver if something already loaded it (a session exists only after it was), else undefined. */
export function loadedDriver(): Driver | undefined {
  return driver.loaded();
}
