/** The global under which startTestApp keeps a test file's apps not closed yet (read by closing-environment.ts). */
export const OPEN_TEST_APPS = '__openTestApps';
