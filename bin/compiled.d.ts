// Types of compiled.js (plain JavaScript: it decides whether the compiled build can run).
export declare const repoRoot: string;
export declare const BUILD_STAMP: string;
export declare function isBuildInput(name: string): boolean;
export declare function sourceState(root?: string): { count: number; newestMs: number; newest: string };
export declare function staleness(root?: string): string | undefined;
export declare function importModule(module: string): Promise<Record<string, unknown>>;
