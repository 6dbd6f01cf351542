/**
 * Sets of field paths, as structured-merge-diff models them, with their `FieldsV1` wire form
 * (the `fieldsV1` of a managedFields entry). A path is a list of elements spelled as FieldsV1
 * spells them: `f:<field>` (an object property), `k:<json object>` (an item of a map-list,
 * named by its key fields, sorted), `v:<json>` (an item of a set-list) and `i:<index>`. A set
 * is a trie whose nodes may themselves be members (`".": {}` in FieldsV1) besides having
 * children. Conflict messages print paths the way kube-apiserver does:
 * `.spec.containers[name="c"].image`.
 */
import { canonicalJson, isObject, type JsonObject } from './json-value.ts';

export type PathElement = string;
export type FieldPath = readonly PathElement[];

/** A read-only view of one node of a set. */
export interface FieldNode {
  readonly member: boolean;
  readonly children: ReadonlyMap<PathElement, FieldNode>;
}

class Node implements FieldNode {
  member = false;
  readonly children = new Map<PathElement, Node>();
}

export function fieldElement(name: string): PathElement {
  return `f:${name}`;
}

/** `k:{"containerPort":80,"protocol":"TCP"}`: the key fields of a map-list item, sorted by name. */
export function keyElement(fields: Readonly<Record<string, unknown>>): PathElement {
  return `k:${canonicalJson(fields)}`;
}

export function valueElement(value: unknown): PathElement {
  return `v:${canonicalJson(value)}`;
}

export function indexElement(index: number): PathElement {
  return `i:${index}`;
}

const kindRank: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

/** structured-merge-diff's order: fields, then keys, then values, then indexes. */
export function compareElements(a: PathElement, b: PathElement): number {
  const byKind = (kindRank[a[0]!] ?? 9) - (kindRank[b[0]!] ?? 9);
  if (byKind) return byKind;
  if (a[0] === 'i') return Number(a.slice(2)) - Number(b.slice(2));
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortedChildren(node: FieldNode): Array<[PathElement, FieldNode]> {
  return [...node.children].sort(([a], [b]) => compareElements(a, b));
}

export class FieldSet {
  private constructor(private readonly root: Node) {}

  static empty(): FieldSet {
    return new FieldSet(new Node());
  }

  static of(paths: Iterable<FieldPath>): FieldSet {
    const set = FieldSet.empty();
    for (const path of paths) set.insert(path);
    return set;
  }

  /** Parses a `fieldsV1` object; undefined when it is not one. */
  static fromFieldsV1(json: unknown): FieldSet | undefined {
    const root = parseNode(json);
    return root ? new FieldSet(root) : undefined;
  }

  get node(): FieldNode {
    return this.root;
  }

  /** Adds a member (and the nodes leading to it). The root itself is never a member. */
  insert(path: FieldPath): this {
    if (!path.length) return this;
    let node = this.root;
    for (const element of path) {
      let child = node.children.get(element);
      if (!child) node.children.set(element, (child = new Node()));
      node = child;
    }
    node.member = true;
    return this;
  }

  has(path: FieldPath): boolean {
    return !!path.length && !!lookup(this.root, path)?.member;
  }

  isEmpty(): boolean {
    return !hasMembers(this.root);
  }

  union(other: FieldSet): FieldSet {
    return new FieldSet(combine(this.root, other.root, (a, b) => a || b, true));
  }

  /** Members of this set that are not members of `other`. */
  difference(other: FieldSet): FieldSet {
    return new FieldSet(combine(this.root, other.root, (a, b) => a && !b, false));
  }

  intersection(other: FieldSet): FieldSet {
    return new FieldSet(combine(this.root, other.root, (a, b) => a && b, false));
  }

  /** The set without the node at `path` and everything under it. */
  withoutSubtree(path: FieldPath): FieldSet {
    const copy = this.clone();
    if (!path.length) return FieldSet.empty();
    const parent = lookup(copy.root, path.slice(0, -1));
    parent?.children.delete(path[path.length - 1]!);
    return new FieldSet(prune(copy.root) ?? new Node());
  }

  /** The set with the given paths no longer members (their children stay). */
  withoutMembers(paths: Iterable<FieldPath>): FieldSet {
    const copy = this.clone();
    for (const path of paths) {
      const node = path.length ? lookup(copy.root, path) : undefined;
      if (node) node.member = false;
    }
    return new FieldSet(prune(copy.root) ?? new Node());
  }

  /**
   * Removes, from this set itself, the subtrees at `subtrees` and then the membership of
   * `members` (their children stay): `withoutSubtree` and `withoutMembers` without their copies,
   * for a set nobody else holds (every create computes one).
   */
  removeInPlace(subtrees: Iterable<FieldPath>, members: Iterable<FieldPath>): this {
    for (const path of subtrees) {
      if (!path.length) this.root.children.clear();
      else lookup(this.root, path.slice(0, -1))?.children.delete(path[path.length - 1]!);
    }
    for (const path of members) {
      const node = path.length ? lookup(this.root, path) : undefined;
      if (node) node.member = false;
    }
    prune(this.root);
    return this;
  }

  clone(): FieldSet {
    return new FieldSet(combine(this.root, new Node(), (a) => a, true));
  }

  /** Every member, in structured-merge-diff's order: at each level the members first, then the deeper paths. */
  paths(): FieldPath[] {
    const out: FieldPath[] = [];
    const visit = (node: FieldNode, prefix: PathElement[]): void => {
      const children = sortedChildren(node);
      for (const [element, child] of children) if (child.member) out.push([...prefix, element]);
      for (const [element, child] of children) visit(child, [...prefix, element]);
    };
    visit(this.root, []);
    return out;
  }

  toFieldsV1(): JsonObject {
    return encodeNode(this.root);
  }
}

function lookup(root: Node, path: FieldPath): Node | undefined {
  let node: Node | undefined = root;
  for (const element of path) {
    node = node.children.get(element);
    if (!node) return undefined;
  }
  return node;
}

function hasMembers(node: FieldNode): boolean {
  if (node.member) return true;
  for (const child of node.children.values()) if (hasMembers(child)) return true;
  return false;
}

/** Combines two tries member by member; `keepRightOnly` walks nodes only `b` has (for union). */
function combine(a: FieldNode, b: FieldNode, member: (a: boolean, b: boolean) => boolean, keepRightOnly: boolean): Node {
  const out = new Node();
  out.member = member(a.member, b.member);
  const empty = new Node();
  for (const [element, child] of a.children) {
    const merged = prune(combine(child, b.children.get(element) ?? empty, member, keepRightOnly));
    if (merged) out.children.set(element, merged);
  }
  if (keepRightOnly) {
    for (const [element, child] of b.children) {
      if (a.children.has(element)) continue;
      const merged = prune(combine(empty, child, member, keepRightOnly));
      if (merged) out.children.set(element, merged);
    }
  }
  return out;
}

/** Drops children without members; returns undefined when nothing is left. */
function prune(node: Node): Node | undefined {
  for (const [element, child] of node.children) if (!prune(child)) node.children.delete(element);
  return node.member || node.children.size ? node : undefined;
}

function encodeNode(node: FieldNode): JsonObject {
  const out: JsonObject = {};
  if (node.member && node.children.size) out['.'] = {};
  for (const [element, child] of sortedChildren(node)) out[element] = encodeNode(child);
  return out;
}

const elementPattern = /^[fkvi]:/;

function canonicalElement(element: string): PathElement | undefined {
  if (!elementPattern.test(element)) return undefined;
  const body = element.slice(2);
  switch (element[0]) {
    case 'f':
      return element;
    case 'i':
      return /^\d+$/.test(body) ? `i:${Number(body)}` : undefined;
    default:
      try {
        const value: unknown = JSON.parse(body);
        if (element[0] === 'k' && !isObject(value)) return undefined;
        return `${element[0]}:${canonicalJson(value)}`;
      } catch {
        return undefined;
      }
  }
}

function parseNode(json: unknown): Node | undefined {
  if (!isObject(json)) return undefined;
  const node = new Node();
  for (const [key, value] of Object.entries(json)) {
    if (key === '.') {
      if (!isObject(value)) return undefined;
      node.member = true;
      continue;
    }
    const element = canonicalElement(key);
    const child = element ? parseNode(value) : undefined;
    if (!element || !child) return undefined;
    // `{}` is a member with nothing below it.
    if (!child.children.size) child.member = true;
    node.children.set(element, child);
  }
  return node;
}

/** A JSON value as Go's `value.ToString` prints it in a path: strings quoted, everything else bare. */
function printValue(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : canonicalJson(value);
}

/** `.spec.containers[name="c"].ports[containerPort=80,protocol="TCP"]`, as kube-apiserver prints a path. */
export function formatPath(path: FieldPath): string {
  return path
    .map((element) => {
      const body = element.slice(2);
      switch (element[0]) {
        case 'f':
          return `.${body}`;
        case 'i':
          return `[${body}]`;
        case 'v':
          return `[=${printValue(JSON.parse(body))}]`;
        case 'k': {
          const fields = JSON.parse(body) as JsonObject;
          return `[${Object.keys(fields).sort().map((k) => `${k}=${printValue(fields[k])}`).join(',')}]`;
        }
        default:
          return element;
      }
    })
    .join('');
}
