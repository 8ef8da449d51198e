// Drives the page `Agent.to_web()` serves, in headless Debian chromium: `node chat.mjs <server url> [screenshot.png]`.
// Prints a JSON summary of what the page showed; exits non-zero on any failure. With a path, it also saves a
// screenshot of the page with approvals pending (used for docs/chat.md).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const [url, screenshot] = process.argv.slice(2);
const TIMEOUT = 10_000;
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

async function withBrowser(scenario) {
  const profile = mkdtempSync(join(tmpdir(), 'chat-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ARGS,
    viewport: { width: 900, height: 820 },
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(TIMEOUT);
    const errors = [];
    page.on('pageerror', (err) => errors.push(String(err)));
    return { ...(await scenario(page)), pageErrors: errors };
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

async function ask(page, text) {
  await page.goto(url);
  await page.getByTestId('prompt').fill(text);
  await page.getByTestId('send').click();
}

const toolStates = (page) =>
  page.locator('.tool').evaluateAll((nodes) => nodes.map((n) => `${n.dataset.toolCallId}:${n.dataset.state}`));

const pending = (page) => page.locator('button[data-testid^="approve-"]');

async function approveAndDeny(page) {
  await ask(page, 'Please clean up my temporary files');
  await pending(page).nth(1).waitFor();
  await page.locator('main[data-status="ready"]').waitFor();
  const asked = await toolStates(page);
  const ids = await pending(page).evaluateAll((nodes) => nodes.map((n) => n.dataset.testid.replace(/^approve-/, '')));
  await page.getByTestId(`reason-${ids[1]}`).fill('I still need my notes');
  if (screenshot) await page.screenshot({ path: screenshot });
  await page.getByTestId(`approve-${ids[0]}`).click();
  await page.getByTestId(`deny-${ids[1]}`).click();
  const final = page.locator('.message.assistant .text').filter({ hasText: 'Done.' });
  await final.waitFor();
  await page.locator('main[data-status="ready"]').waitFor();
  const denial = await page.locator('.tool[data-state="output-denied"] .output').innerText();
  return { asked, answered: await toolStates(page), denial, finalText: await final.innerText() };
}

async function reloadMidApproval(page) {
  await ask(page, 'Clean up again');
  await pending(page).first().waitFor();
  await page.locator('main[data-status="ready"]').waitFor();
  const before = await toolStates(page);
  await page.reload();
  await pending(page).first().waitFor();
  const buttons = await page.locator('button[data-testid^="approve-"], button[data-testid^="deny-"]').count();
  const afterReload = await toolStates(page);
  for (let count = await pending(page).count(); count > 0; count--) {
    await pending(page).first().click();
  }
  const final = page.locator('.message.assistant .text').filter({ hasText: 'Done.' });
  await final.waitFor();
  return { before, afterReload, pendingButtons: buttons, finalText: await final.innerText() };
}

const result = {
  approveAndDeny: await withBrowser(approveAndDeny),
  reloadMidApproval: await withBrowser(reloadMidApproval),
};
console.log(JSON.stringify(result, null, 2));
