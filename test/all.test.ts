/**
 * Every test file in one process, one after another (test/run-files.ts): what `npm test` runs
 * in lanes side by side (test/lanes/), here in one line, for a narrowed run or a debugger:
 * `SHIPYARD_TEST_FILTER=src/node node --import tsx --test test/all.test.ts`.
 */
import { findTestFiles, runTestFiles } from './run-files.ts';

runTestFiles(findTestFiles());
