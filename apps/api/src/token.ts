import { randomUUID } from 'node:crypto';
import { loadConfig } from '@billing/platform';
import { signDevelopmentToken } from './dev-token';

/** `npm run token -- --environment <uuid> [--environment <uuid>] [--sub <subject>]` prints a signed development token. */
function main(): void {
  const args = process.argv.slice(2);
  const environments: string[] = [];
  let subject = 'developer';
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--environment' || args[i] === '-e') environments.push(args[++i]);
    else if (args[i] === '--sub') subject = args[++i];
    else throw new Error(`unknown argument ${args[i]}`);
  }
  if (environments.length === 0) environments.push(randomUUID());
  process.stdout.write(`${signDevelopmentToken(loadConfig(), environments, subject)}\n`);
}

main();
