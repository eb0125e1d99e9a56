/**
 * An item's size as DynamoDB counts it for capacity and storage ("Item sizes and formats" in the DynamoDB
 * developer guide).
 */
export function itemSize(item: Record<string, unknown>): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) {
    if (value === undefined) continue;
    size += utf8(name) + valueSize(value);
  }
  return size;
}

function utf8(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

function numberSize(value: number): number {
  const digits = String(Math.abs(value))
    .replace(/e[+-]?\d+$/i, '')
    .replace('.', '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
}

function valueSize(value: unknown): number {
  if (typeof value === 'string') return utf8(value);
  if (typeof value === 'number') return numberSize(value);
  if (typeof value === 'boolean' || value === null) return 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((sum: number, element) => sum + valueSize(element), 0);
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, element) => sum + 1 + valueSize(element), 0);
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return 3 + entries.reduce((sum, [key, v]) => sum + 1 + utf8(key) + valueSize(v), 0);
  }
  throw new Error(`no DynamoDB size for a ${typeof value}`);
}
