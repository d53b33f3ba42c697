import { lintProblems as problems } from '@billing/testing/lint';

/**
 * The lint rules that keep the architecture (eslint.config.js) do fail on
 * the imports they exist to stop: checked on code written at real paths.
 */
describe('architecture lint rules', () => {
  it.each([
    ["import { Injectable } from '@nestjs/common';", 'no framework'],
    ["import { DataSource } from 'typeorm';", 'no framework'],
    ["import { IsString } from 'class-validator';", 'no framework'],
    ["import { readFileSync } from 'node:fs';", 'I/O'],
    ["import { EventStore } from '@billing/event-store';", 'shared kernel only'],
    ["import { priceView } from '@billing/catalog';", 'shared kernel only'],
    ["import { InvoicesController } from '../http/invoices.controller';", 'outside domain/'],
  ])('refuses `%s` in a domain (%s)', (code, expected) => {
    expect(problems('libs/invoicing/src/domain/example.ts', `${code}\nexport const used = [${/\{ (\w+) \}/.exec(code)![1]}];\n`).join('\n')).toContain(
      expected,
    );
  });

  it('allows the shared kernel and pure Node computations in a domain', () => {
    const code =
      "import { DomainError } from '@billing/shared-kernel';\nimport { createHmac } from 'node:crypto';\nexport const used = [DomainError, createHmac];\n";
    expect(problems('libs/invoicing/src/domain/example.ts', code)).toEqual([]);
  });

  it.each(["import { readQuery } from '../../../invoicing/src/http/params';", "import { invoiceStream } from '@billing/invoicing/infrastructure/streams';"])(
    'refuses another package reached through its files: `%s`',
    (code) => {
      expect(problems('libs/catalog/src/http/example.ts', `${code}\nexport const used = [${/\{ (\w+) \}/.exec(code)![1]}];\n`).join('\n')).toMatch(
        /public entry/,
      );
    },
  );
});
