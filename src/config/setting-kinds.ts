/** A variable whose value the service refuses; its message names the variable and what it must be. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`Invalid configuration: ${variable} ${message}`);
    this.name = 'ConfigError';
  }
}

export type Env = Record<string, string | undefined>;

export const isProduction = (env: Env) => env.NODE_ENV === 'production';

/** One environment variable: its name, the default and meaning the docs show, and how its value is read. */
export interface Setting<T> {
  name: string;
  default: string;
  description: string;
  parse(raw: string | undefined, env: Env): T;
}

export function fail(name: string, message: string): never {
  throw new ConfigError(name, message);
}

export function int(name: string, fallback: number, min: number, max: number, description: string): Setting<number> {
  return {
    name,
    default: String(fallback),
    description,
    parse(raw) {
      if (raw === undefined || raw === '') return fallback;
      if (!/^\d+$/.test(raw)) fail(name, `must be a whole number, got "${raw}"`);
      const value = Number(raw);
      if (value < min || value > max) fail(name, `must be between ${min} and ${max}, got ${value}`);
      return value;
    },
  };
}

/** A whole number worked out from other settings of the same environment when unset; the docs show `shownDefault`. */
export function derivedInt(
  name: string,
  shownDefault: string,
  fallback: (env: Env) => number,
  min: number,
  max: number,
  description: string,
): Setting<number> {
  const given = int(name, 0, min, max, description);
  return {
    ...given,
    default: shownDefault,
    parse: (raw, env) => (raw === undefined || raw === '' ? fallback(env) : given.parse(raw, env)),
  };
}

export function bool(
  name: string,
  fallback: (env: Env) => boolean,
  shownDefault: string,
  description: string,
): Setting<boolean> {
  return {
    name,
    default: shownDefault,
    description,
    parse(raw, env) {
      if (raw === undefined || raw === '') return fallback(env);
      if (raw === 'true' || raw === '1') return true;
      if (raw === 'false' || raw === '0') return false;
      fail(name, `must be true or false, got "${raw}"`);
    },
  };
}

export function text(
  name: string,
  fallback: string,
  description: string,
  check?: (value: string) => string | null,
): Setting<string> {
  return {
    name,
    default: fallback === '' ? '(unset)' : fallback,
    description,
    parse(raw) {
      const value = raw === undefined || raw === '' ? fallback : raw;
      const problem = value !== '' && check ? check(value) : null;
      if (problem) fail(name, problem);
      return value;
    },
  };
}
