import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { preProcessFile } from 'typescript';

/**
 * No import cycle between the files of apps/ and libs/ (type imports count:
 * a command and its handler importing each other is a cycle even when one
 * side only needs a type). Between packages the context map already rules
 * cycles out (context-map.unit.spec.ts); this covers the files within one.
 */
describe('import cycles', () => {
  const root = join(__dirname, '..', '..');
  const files = execFileSync('git', ['ls-files', 'apps/*.ts', 'libs/*.ts'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((file) => file !== '' && !file.endsWith('.spec.ts'));
  const known = new Set(files);

  /** The file an import names: relative, or a package's public entry. */
  const resolve = (from: string, specifier: string): string | undefined => {
    const base = specifier.startsWith('.')
      ? join(dirname(from), specifier)
      : specifier.startsWith('@billing/')
        ? `libs/${specifier.slice('@billing/'.length)}/src`
        : null;
    return base === null ? undefined : [`${base}.ts`, `${base}/index.ts`].find((candidate) => known.has(candidate));
  };

  it('finds none', () => {
    const imports = new Map(
      files.map((file) => [
        file,
        preProcessFile(readFileSync(join(root, file), 'utf8'), true, true)
          .importedFiles.map((imported) => resolve(file, imported.fileName))
          .filter((target): target is string => target !== undefined),
      ]),
    );
    // Depth-first: a file met again while still on the path closes a cycle.
    const cycles: string[] = [];
    const done = new Set<string>();
    const path: string[] = [];
    const visit = (file: string): void => {
      const at = path.indexOf(file);
      if (at >= 0) return void cycles.push([...path.slice(at), file].join(' -> '));
      if (done.has(file)) return;
      path.push(file);
      for (const target of imports.get(file) ?? []) visit(target);
      path.pop();
      done.add(file);
    };
    for (const file of files) visit(file);
    expect(cycles).toEqual([]);
  });
});
