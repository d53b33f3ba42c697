import { Linter } from 'eslint';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
// The repository's CommonJS configuration, loaded in-process as ESLint loads it (the CLI costs seconds a call).
const config = require(join(root, 'eslint.config.js')) as Linter.Config[];
const linter = new Linter({ cwd: root });

/**
 * What the repository's lint rules say of `code` placed at `path` (relative
 * to the repository), as `rule: message` lines. Snippets only import: unused
 * names are not reported.
 */
export function lintProblems(path: string, code: string): string[] {
  return linter
    .verify(code, config, { filename: join(root, path) })
    .filter((message) => message.ruleId !== '@typescript-eslint/no-unused-vars')
    .map((message) => `${message.ruleId}: ${message.message}`);
}
