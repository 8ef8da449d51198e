// Drives the useChat page in headless Debian chromium: `node run.mjs <server url>`.
// Prints a JSON summary of what the page showed; exits non-zero on any failure.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const url = process.argv[2];
const TIMEOUT = 10_000;
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

async function withBrowser(scenario) {
  const profile = mkdtempSync(join(tmpdir(), 'e2e-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ARGS,
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

async function toolStates(page) {
  return page.locator('.tool').evaluateAll((nodes) => nodes.map((n) => `${n.dataset.toolCallId}:${n.dataset.state}`));
}

async function approveAndDeny(page) {
  await ask(page, 'Please clean up my temporary files');
  await page.getByTestId('approve-call_1_0').waitFor();
  await page.getByTestId('deny-call_1_1').waitFor();
  const asked = await toolStates(page);
  await page.getByTestId('approve-call_1_0').click();
  await page.getByTestId('reason-call_1_1').fill('I still need my notes');
  await page.getByTestId('deny-call_1_1').click();
  const final = page.locator('.message.assistant .text').filter({ hasText: 'Done.' });
  await final.waitFor();
  await page.locator('main[data-status="ready"]').waitFor();
  return { asked, answered: await toolStates(page), finalText: await final.innerText() };
}

async function reloadMidApproval(page) {
  await ask(page, 'Clean up again');
  await page.locator('[data-testid^="approve-"]').first().waitFor();
  await page.locator('main[data-status="ready"]').waitFor();
  const before = await toolStates(page);
  await page.reload();
  await page.locator('[data-testid^="approve-"]').first().waitFor();
  const buttons = await page.locator('button[data-testid^="approve-"], button[data-testid^="deny-"]').count();
  const afterReload = await toolStates(page);
  // The reloaded conversation is still live: answering it resumes the run.
  await page.locator('button[data-testid^="approve-"]').first().click();
  const final = page.locator('.message.assistant .text').filter({ hasText: 'Done.' });
  await final.waitFor();
  return { before, afterReload, pendingButtons: buttons, finalText: await final.innerText() };
}

const result = {
  approveAndDeny: await withBrowser(approveAndDeny),
  reloadMidApproval: await withBrowser(reloadMidApproval),
};
console.log(JSON.stringify(result, null, 2));
