import type { Circus } from '@jest/types';
import NodeEnvironment from 'jest-environment-node';
import { OPEN_TEST_APPS } from './open-test-apps';

/**
 * Jest's node environment, which closes the apps a test file left open once
 * its last hook ran. A test that times out is abandoned, not stopped: its
 * `finally` never closes its app, whose workers went on opening pg clients
 * after the file's modules were torn down ("Cannot read properties of
 * undefined (reading 'Socket')": pg requires `net` when it connects). Jest's
 * `teardown` event comes after every afterAll and before that teardown, so a
 * test's own close comes first and the modules are still there.
 */
export default class ClosingEnvironment extends NodeEnvironment {
  async handleTestEvent(event: Circus.Event): Promise<void> {
    if (event.name !== 'teardown') return;
    const open = (this.global as Record<string, unknown>)[OPEN_TEST_APPS] as Set<{ close(): Promise<void> }> | undefined;
    if (open) await Promise.allSettled([...open].map((app) => app.close()));
  }
}
