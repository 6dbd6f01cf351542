/**
 * `x-kubernetes-validations`: the CEL rules of a CRD version's schema, run on custom resources
 * as kube-apiserver runs them. Each rule runs with `self` bound to the value at its schema node
 * (never a null or absent one); a rule that reads `oldSelf` is a transition rule and runs only
 * on an update where the node's old value can be found: through object properties and map
 * keys (unless the map is atomic) and through the keys of `x-kubernetes-list-type: map` lists,
 * not through other lists. A rule with `optionalOldSelf: true` runs also where there is no old
 * value (on create, too), with `oldSelf` an optional: `optional.none()` there, else the value. A failure is a field error at the node (plus the rule's
 * `fieldPath`) carrying the rule's message, its `messageExpression`'s result, or
 * `failed rule: <rule>`, typed by its `reason`. As with Kubernetes' validation ratcheting, a
 * failing rule that does not read `oldSelf` on a value the update left unchanged is only a
 * warning, so objects stored before a rule was added can still have their status written.
 *
 * Rules are compiled once per schema (that is, per CRD version: a CRD update builds new schema
 * objects) and the compiled tree keeps only the branches that hold rules.
 */
import { isDeepStrictEqual } from 'node:util';
import { Optional } from '@marcbachmann/cel-js';
import { fieldError, type FieldError, type FieldErrorType } from '../../api/field-errors.ts';
import type { JSONSchemaProps } from '../../api/schema.ts';
import { type CelBudget, compileExpression, type CompileResult, evaluateExpression, newBudget } from './cel/compile.ts';
import { CelValueConverter } from './cel-values.ts';
import { child, key } from './field-path.ts';

type ValidationRule = NonNullable<JSONSchemaProps['x-kubernetes-validations']>[number];

/** The field Kubernetes reports a root rule's failure on: a nil field.Path. */
const rootField = '<nil>';
const maxMessageLength = 5000;

interface CompiledRule {
  readonly rule: ValidationRule;
  readonly compiled: CompileResult;
  readonly message?: CompileResult;
  /** The rule's `fieldPath` as a field path relative to the node (`spec.foo`, `labels[a.b]`); empty when unset or unusable. */
  readonly fieldPath: string;
  readonly reason?: string;
}

interface RuleNode {
  readonly schema: JSONSchemaProps;
  readonly resourceRoot: boolean;
  readonly rules: readonly CompiledRule[];
  readonly usesOldSelf: boolean;
  readonly properties?: ReadonlyMap<string, RuleNode>;
  readonly additional?: RuleNode;
  readonly items?: RuleNode;
}

/** Splits a rule's `fieldPath` (`.a.b`, `['a.b']`) into names; undefined when it does not parse. */
export function parseRuleFieldPath(fieldPath: string): string[] | undefined {
  const names: string[] = [];
  const re = /\.([^.[\]']+)|\['((?:[^'\\]|\\.)*)'\]/y;
  let pos = 0;
  while (pos < fieldPath.length) {
    re.lastIndex = pos;
    const m = re.exec(fieldPath);
    if (!m) return undefined;
    names.push(m[1] ?? m[2]!.replace(/\\(.)/g, '$1'));
    pos = re.lastIndex;
  }
  return names.length > 0 ? names : undefined;
}

/** The rule's fieldPath as this codebase prints field paths: properties as `.name`, map keys as `[key]`. */
function normalizeFieldPath(schema: JSONSchemaProps, fieldPath: string | undefined): string {
  if (!fieldPath) return '';
  const names = parseRuleFieldPath(fieldPath.trim());
  if (!names) return '';
  let path = '';
  let s: JSONSchemaProps | undefined = schema;
  for (const name of names) {
    if (s?.properties) {
      path = child(path, name);
      s = Object.hasOwn(s.properties, name) ? s.properties[name] : undefined;
    } else if (typeof s?.additionalProperties === 'object') {
      path = key(path, name);
      s = s.additionalProperties;
    } else return '';
  }
  return path;
}

function compileRules(schema: JSONSchemaProps): CompiledRule[] {
  const rules = schema['x-kubernetes-validations'];
  if (!Array.isArray(rules)) return [];
  return rules.map((rule) => ({
    rule,
    compiled: compileExpression(String(rule?.rule ?? ''), 'rule'),
    message: rule?.messageExpression ? compileExpression(rule.messageExpression, 'message') : undefined,
    fieldPath: normalizeFieldPath(schema, rule?.fieldPath),
    reason: rule?.reason,
  }));
}

function buildNode(schema: JSONSchemaProps | undefined, resourceRoot: boolean, seen: Set<object>): RuleNode | undefined {
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return undefined;
  seen.add(schema);
  const rules = compileRules(schema);
  let properties: Map<string, RuleNode> | undefined;
  for (const [k, p] of Object.entries(schema.properties ?? {})) {
    const n = buildNode(p, p?.['x-kubernetes-embedded-resource'] === true, seen);
    if (n) (properties ??= new Map()).set(k, n);
  }
  const ap = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  const additional = buildNode(ap, ap?.['x-kubernetes-embedded-resource'] === true, seen);
  const items = buildNode(schema.items, schema.items?.['x-kubernetes-embedded-resource'] === true, seen);
  seen.delete(schema);
  if (rules.length === 0 && !properties && !additional && !items) return undefined;
  const usesOldSelf = rules.some((r) => r.compiled.ok && r.compiled.expression.usesOldSelf);
  return { schema, resourceRoot, rules, usesOldSelf, properties, additional, items };
}

const trees = new WeakMap<JSONSchemaProps, RuleNode | null>();

function treeOf(schema: JSONSchemaProps): RuleNode | null {
  let tree = trees.get(schema);
  if (tree === undefined) {
    tree = buildNode(schema, true, new Set()) ?? null;
    trees.set(schema, tree);
  }
  return tree;
}

/** Whether a version's schema has any CEL rules (compiling them on first use). */
export function hasCelRules(schema: JSONSchemaProps): boolean {
  return treeOf(schema) !== null;
}

export interface CelValidationResult {
  readonly errors: FieldError[];
  /** Failures ratcheted to warnings (the value is unchanged by the update). */
  readonly warnings: string[];
}

function ruleErrorString(rule: ValidationRule): string {
  return (rule.message ? rule.message : String(rule.rule ?? '')).trim();
}

function ruleMessageOrDefault(rule: ValidationRule): string {
  return rule.message ? rule.message.trim() : `failed rule: ${ruleErrorString(rule)}`;
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** The old item a `map`-type list item corresponds to: the one with the same key values. */
function correlatedListItem(schema: JSONSchemaProps, oldList: unknown, item: unknown): unknown {
  if (schema['x-kubernetes-list-type'] !== 'map' || !Array.isArray(oldList) || !isObject(item)) return undefined;
  const keys = schema['x-kubernetes-list-map-keys'] ?? [];
  if (keys.length === 0) return undefined;
  return oldList.find((o) => isObject(o) && keys.every((k) => isDeepStrictEqual(o[k], item[k])));
}

class Pass {
  readonly errors: FieldError[] = [];
  readonly warnings: string[] = [];
  private readonly values = new CelValueConverter();
  stopped = false;

  constructor(private readonly budget: CelBudget) {}

  /**
   * `unchanged` says whether the nearest node whose old value could be found is equal to it,
   * which is what ratcheting looks at for nodes whose own old value cannot be found.
   */
  node(n: RuleNode, value: unknown, old: unknown, path: string, parentUnchanged: () => boolean): void {
    if (value === null || value === undefined || this.stopped) return;
    let memo: boolean | undefined;
    const unchanged = old === undefined ? parentUnchanged : () => (memo ??= isDeepStrictEqual(value, old));
    if (n.rules.length > 0) this.rules(n, value, old, path, unchanged);
    if (this.stopped) return;
    if (Array.isArray(value)) {
      if (!n.items) return;
      for (let i = 0; i < value.length && !this.stopped; i++) {
        this.node(n.items, value[i], old === undefined ? undefined : correlatedListItem(n.schema, old, value[i]), `${path}[${i}]`, unchanged);
      }
      return;
    }
    if (!isObject(value)) return;
    const oldMap = isObject(old) && n.schema['x-kubernetes-map-type'] !== 'atomic' ? old : undefined;
    for (const [k, v] of Object.entries(value)) {
      if (this.stopped) return;
      const sub = n.properties?.get(k);
      if (sub) this.node(sub, v, oldMap?.[k], child(path, k), unchanged);
      else if (n.additional && !(n.schema.properties && Object.hasOwn(n.schema.properties, k))) this.node(n.additional, v, oldMap?.[k], key(path, k), unchanged);
    }
  }

  private rules(n: RuleNode, value: unknown, old: unknown, path: string, unchanged: () => boolean): void {
    const type = n.schema.type ?? '';
    const at = path || rootField;
    const self = this.values.convert(value, n.schema, n.resourceRoot);
    const oldSelf = old !== undefined && n.usesOldSelf ? this.values.convert(old, n.schema, n.resourceRoot) : null;
    for (const r of n.rules) {
      if (!r.compiled.ok) {
        this.errors.push(fieldError.invalid(at, type, `rule compile error: ${r.compiled.error}`));
        continue;
      }
      const expr = r.compiled.expression;
      const optionalOld = expr.usesOldSelf && r.rule.optionalOldSelf === true;
      if (expr.usesOldSelf && old === undefined && !optionalOld) continue;
      const vars = { self, oldSelf: optionalOld ? (old === undefined ? Optional.none() : Optional.of(oldSelf)) : oldSelf };
      const result = evaluateExpression(expr, vars, this.budget);
      if (result.kind === 'exceeded') {
        this.stopped = true;
        const detail =
          result.limit === 'call'
            ? `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(r.rule)}`
            : 'validation failed due to running out of cost budget, no further validation rules will be run';
        this.errors.push(fieldError.invalid(at, type, detail));
        return;
      }
      if (result.kind === 'error') {
        const detail = result.message.toLowerCase().startsWith('no such overload')
          ? `'${result.message}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(r.rule)}`
          : `${result.message} evaluating rule: ${ruleErrorString(r.rule)}`;
        this.errors.push(fieldError.invalid(at, type, detail));
        continue;
      }
      if (result.value === true) continue;
      const field = r.fieldPath ? child(path, r.fieldPath) : at;
      const detail = this.message(r, vars) ?? ruleMessageOrDefault(r.rule);
      if (this.stopped) {
        this.errors.push(fieldError.invalid(field, type, detail));
        return;
      }
      const err = errorForReason(r.reason, field, type, detail);
      if (!expr.usesOldSelf && unchanged()) this.warnings.push(err.message);
      else this.errors.push(err);
    }
  }

  /** The messageExpression's result, when it yields a usable message. */
  private message(r: CompiledRule, vars: Record<string, unknown>): string | undefined {
    if (!r.message?.ok) return undefined;
    const result = evaluateExpression(r.message.expression, vars, this.budget);
    if (result.kind === 'exceeded') {
      this.stopped = true;
      return 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run';
    }
    if (result.kind !== 'value' || typeof result.value !== 'string') return undefined;
    const text = result.value.trim();
    if (text === '' || text.length > maxMessageLength || text.includes('\n')) return undefined;
    return text;
  }
}

function errorForReason(reason: string | undefined, field: string, type: string, detail: string): FieldError {
  const kinds: Record<string, FieldErrorType> = { FieldValueForbidden: 'FieldValueForbidden', FieldValueRequired: 'FieldValueRequired', FieldValueDuplicate: 'FieldValueDuplicate' };
  switch (reason ? kinds[reason] : undefined) {
    case 'FieldValueForbidden':
      return fieldError.forbidden(field, detail);
    case 'FieldValueRequired':
      return fieldError.required(field, detail);
    case 'FieldValueDuplicate':
      return fieldError.duplicate(field, type);
    default:
      return fieldError.invalid(field, type, detail);
  }
}

export interface CelValidationOptions {
  /** The stored object, on an update: transition rules run, and unchanged values are ratcheted. */
  readonly old?: Record<string, unknown>;
  /** The request's budget; a fresh one when unset. */
  readonly budget?: CelBudget;
}

/**
 * Runs the CEL rules of `schema` (a version's `openAPIV3Schema`) on `obj`, a pruned, defaulted
 * and otherwise valid custom resource.
 */
export function validateCelRules(obj: Record<string, unknown>, schema: JSONSchemaProps, options: CelValidationOptions = {}): CelValidationResult {
  const tree = treeOf(schema);
  if (!tree) return { errors: [], warnings: [] };
  const pass = new Pass(options.budget ?? newBudget());
  pass.node(tree, obj, options.old, '', () => false);
  return { errors: pass.errors, warnings: pass.warnings };
}
