import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer, { Browser, BrowserContext, Page } from 'puppeteer-core';

/**
 * Headless Chromium for the pages' browser tests: from the @sparticuz/chromium npm package (nothing installed at test
 * time, no system browser), driven by puppeteer-core.
 */

/**
 * @sparticuz/chromium's flags, less those that would weaken what is tested or break a second browser context:
 * one process for everything (contexts die with it), and the same-origin and mixed-content checks switched off.
 */
const WEAKENING_FLAGS = new Set(['--single-process', '--disable-web-security', '--allow-running-insecure-content']);

/** Screenshots of the pages, for a person to look at (ignored by git; the ones in docs/ are copies of some). */
export const TEST_OUTPUT = join(__dirname, '..', '..', 'test-output');

export async function launchBrowser(): Promise<Browser> {
  // The package is ESM with a CommonJS build; its typings resolve only as ESM, hence import().
  const { default: chromium } = await import('@sparticuz/chromium');
  const args = chromium.args.filter((flag) => !WEAKENING_FLAGS.has(flag));
  const browser = await puppeteer.launch({ executablePath: await chromium.executablePath(), args, headless: true });
  mkdirSync(TEST_OUTPUT, { recursive: true });
  return browser;
}

/** A page at phone width (375 × 812) that records every request it makes and every console message (CSP violations show there). */
export async function phonePage(context: BrowserContext): Promise<{ page: Page; requests: string[]; console: string[] }> {
  const page = await context.newPage();
  await page.setViewport({ width: 375, height: 812 });
  const requests: string[] = [];
  const console: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('console', (message) => console.push(message.text()));
  return { page, requests, console };
}
