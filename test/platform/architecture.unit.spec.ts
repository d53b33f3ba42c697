import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * The lint rules that keep the architecture (eslint.config.js) do fail on
 * the imports they exist to stop: checked on code written at real paths.
 */
describe('architecture lint rules', () => {
  const root = join(__dirname, '..', '..');
  // ESLint loads its configuration with import(), which Jest's module sandbox cannot: run the real CLI.
  const problems = async (path: string, code: string): Promise<string[]> => {
    const cli = join(root, 'node_modules', 'eslint', 'bin', 'eslint.js');
    const run = spawnSync(process.execPath, [cli, '--format', 'json', '--stdin', '--stdin-filename', join(root, path)], { cwd: root, input: code, encoding: 'utf8' });
    return JSON.parse(run.stdout)[0].messages.map((m: { message: string }) => m.message);
  };

  it.each([
    ["import { Injectable } from '@nestjs/common';", 'no framework'],
    ["import { DataSource } from 'typeorm';", 'no framework'],
    ["import { IsString } from 'class-validator';", 'no framework'],
    ["import { readFileSync } from 'node:fs';", 'I/O'],
    ["import { EventStore } from '@billing/event-store';", 'shared kernel only'],
    ["import { priceView } from '@billing/catalog';", 'shared kernel only'],
    ["import { InvoicesController } from '../http/invoices.controller';", 'outside domain/'],
  ])('refuses `%s` in a domain (%s)', async (code, expected) => {
    expect((await problems('libs/invoicing/src/domain/example.ts', `${code}\nexport const used = [${/\{ (\w+) \}/.exec(code)![1]}];\n`)).join('\n')).toContain(expected);
  });

  it('allows the shared kernel and pure Node computations in a domain', async () => {
    const code = "import { DomainError } from '@billing/shared-kernel';\nimport { createHmac } from 'node:crypto';\nexport const used = [DomainError, createHmac];\n";
    expect(await problems('libs/invoicing/src/domain/example.ts', code)).toEqual([]);
  });

  it.each([
    "import { readQuery } from '../../../invoicing/src/http/params';",
    "import { invoiceStream } from '@billing/invoicing/infrastructure/streams';",
  ])('refuses another package reached through its files: `%s`', async (code) => {
    expect((await problems('libs/catalog/src/http/example.ts', `${code}\nexport const used = [${/\{ (\w+) \}/.exec(code)![1]}];\n`)).join('\n')).toMatch(/public entry/);
  });
});
