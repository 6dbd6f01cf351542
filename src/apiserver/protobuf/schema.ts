/**
 * The notation of the message tables and its compiled form. A table maps a message name to
 * its fields, each written as one string `"<jsonName>: <type>"`:
 *
 * - scalar types: `string`, `bytes` (base64 in JSON), `int32`, `int64`, `bool`;
 * - Kubernetes' own wrappers: `IntOrString`, `Quantity`, `Time`, `RawExtension`, `ExtraValue`
 *   (a user's extra attribute values: a message of repeated strings that JSON prints as a list);
 * - any other name is a message of the table, nested as a JSON object;
 * - `[]T` is a repeated field (a JSON array), `map<T>` a map with string keys (a JSON object);
 * - `unsupported` marks a field Kubernetes defines that this decoder does not read: a body
 *   carrying it is refused (so that nothing is silently dropped) and should be sent as JSON;
 * - a trailing `!` keeps zero values of a scalar (`""`, `0`, `false`): Go fields that are
 *   pointers or lack `omitempty` print them, the rest drop them as Go's JSON does;
 * - the JSON name `...` inlines the nested message's fields into the parent object (Go's
 *   embedded structs, such as `VolumeSource` inside `Volume`).
 *
 * Nested messages always appear when they are on the wire (kubectl sends `status: {}`), and
 * fields absent from the wire stay absent. Field numbers are protobuf wire facts taken from
 * Kubernetes' generated.proto files.
 */
export type MessageSpec = Readonly<Record<number, string>>;
export type MessageTable = Readonly<Record<string, MessageSpec>>;

export const scalarTypes = ['string', 'bytes', 'int32', 'int64', 'bool'] as const;
export type ScalarType = (typeof scalarTypes)[number];
export const wrapperTypes = ['IntOrString', 'Quantity', 'Time', 'RawExtension', 'ExtraValue'] as const;
export type WrapperType = (typeof wrapperTypes)[number];

export type ValueType =
  | { kind: 'scalar'; type: ScalarType }
  | { kind: 'wrapper'; type: WrapperType }
  | { kind: 'message'; message: Message }
  | { kind: 'unsupported' };

export interface Field {
  number: number;
  /** JSON property, or `null` when the message is inlined into its parent. */
  json: string | null;
  label: 'single' | 'repeated' | 'map';
  value: ValueType;
  keepZero: boolean;
}

export interface Message {
  name: string;
  fields: Map<number, Field>;
}

const fieldPattern = /^(\.\.\.|[A-Za-z_$][\w$]*): (\[\])?(?:map<(\w+)>|(\w+))(!)?$/;

/** Compiles a table, checking every spec and every message reference; throws on any mistake. */
export function compileTable(table: MessageTable): ReadonlyMap<string, Message> {
  const messages = new Map<string, Message>();
  for (const name of Object.keys(table)) messages.set(name, { name, fields: new Map() });
  for (const [name, spec] of Object.entries(table)) {
    const message = messages.get(name)!;
    for (const [num, text] of Object.entries(spec)) {
      const number = Number(num);
      if (!Number.isInteger(number) || number < 1 || number >= 2 ** 29) throw new Error(`schema ${name}: bad field number ${num}`);
      const m = fieldPattern.exec(text);
      if (!m) throw new Error(`schema ${name}.${num}: cannot read ${JSON.stringify(text)}`);
      const [, json, repeated, mapValue, single, bang] = m;
      const typeName = (mapValue ?? single)!;
      const value = resolve(typeName, messages, `${name}.${num}`);
      const label = mapValue !== undefined ? 'map' : repeated ? 'repeated' : 'single';
      if (repeated && mapValue !== undefined) throw new Error(`schema ${name}.${num}: a map cannot be repeated`);
      if (json === '...' && (label !== 'single' || value.kind !== 'message')) throw new Error(`schema ${name}.${num}: only a single message can be inlined`);
      if (bang && (label !== 'single' || value.kind !== 'scalar')) throw new Error(`schema ${name}.${num}: "!" applies to single scalars only`);
      message.fields.set(number, { number, json: json === '...' ? null : json!, label, value, keepZero: bang !== undefined });
    }
  }
  return messages;
}

function resolve(typeName: string, messages: Map<string, Message>, where: string): ValueType {
  if ((scalarTypes as readonly string[]).includes(typeName)) return { kind: 'scalar', type: typeName as ScalarType };
  if ((wrapperTypes as readonly string[]).includes(typeName)) return { kind: 'wrapper', type: typeName as WrapperType };
  if (typeName === 'unsupported') return { kind: 'unsupported' };
  const message = messages.get(typeName);
  if (!message) throw new Error(`schema ${where}: unknown message ${typeName}`);
  return { kind: 'message', message };
}

/** Joins tables, refusing a message name defined twice. */
export function mergeTables(...tables: MessageTable[]): MessageTable {
  const out: Record<string, MessageSpec> = {};
  for (const t of tables) {
    for (const [name, spec] of Object.entries(t)) {
      if (name in out) throw new Error(`schema: message ${name} is defined twice`);
      out[name] = spec;
    }
  }
  return out;
}
