'use strict';
/**
 * For render workers started from the TypeScript sources (tests run the
 * sources, not dist/): compiles `.ts` files on require with the repository's
 * own swc settings (.swcrc, whose paths turn `@billing/*` into relative
 * imports). A build (dist/) has the compiled files and never loads this.
 */
const Module = require('node:module');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

function register() {
  if (Module._extensions['.ts']) return;
  const root = join(__dirname, '..', '..', '..', '..');
  const swcrc = JSON.parse(readFileSync(join(root, '.swcrc'), 'utf8'));
  const { transformSync } = require('@swc/core');
  Module._extensions['.ts'] = (module, filename) => {
    const { code } = transformSync(readFileSync(filename, 'utf8'), {
      ...swcrc,
      $schema: undefined,
      swcrc: false,
      filename,
      sourceMaps: 'inline',
      jsc: { ...swcrc.jsc, baseUrl: root },
    });
    module._compile(code, filename);
  };
}

module.exports = { register };
