// Drives the durable approvals inbox in headless Debian chromium: `node durable.mjs start|approve <server url>`.
// `start` starts a run from the page and waits until its approval shows in the inbox; `approve` (run after
// the server was restarted) approves it and waits for the finished run. Prints a JSON summary.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const [phase, url] = process.argv.slice(2);
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];

// The inbox is a plain page: reload it until `selector` shows up.
async function reloadUntil(page, selector) {
  for (let i = 0; i < 100; i++) {
    if ((await page.locator(selector).count()) > 0) return page.locator(selector).first();
    await page.waitForTimeout(100);
    await page.goto(url);
  }
  throw new Error(`${selector} never showed`);
}

async function start(page) {
  await page.goto(url);
  await page.getByTestId('prompt').fill('Please delete notes.txt');
  await page.getByTestId('start').click();
  const item = await reloadUntil(page, 'li.pending');
  return { workflowId: await item.getAttribute('data-workflow-id'), asks: await item.locator('code').innerText() };
}

async function approve(page) {
  await page.goto(url);
  const item = await reloadUntil(page, 'li.pending');
  const workflowId = await item.getAttribute('data-workflow-id');
  await page.getByTestId(`approve-${workflowId}`).click();
  const run = await reloadUntil(page, `li.run[data-workflow-id="${workflowId}"][data-status="SUCCESS"]`);
  return {
    workflowId,
    output: await run.locator('.output').innerText(),
    inbox: await page.locator('#pending').innerText(),
  };
}

const profile = mkdtempSync(join(tmpdir(), 'e2e-chromium-'));
const context = await chromium.launchPersistentContext(profile, { executablePath: '/usr/bin/chromium', args: ARGS });
try {
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(10_000);
  const errors = [];
  page.on('pageerror', (err) => errors.push(String(err)));
  const result = phase === 'start' ? await start(page) : await approve(page);
  console.log(JSON.stringify({ ...result, pageErrors: errors }));
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
