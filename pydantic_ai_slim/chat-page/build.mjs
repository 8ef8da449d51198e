// Builds the chat page `Agent.to_web()` serves: bundles main.jsx (React + the AI SDK's useChat) with esbuild and
// inlines it into index.html, written to pydantic_ai/_chat/chat.html with the sha256 of its sources, so a test can
// tell when the committed page is stale. Run with `make chat-page` (uses the packages of tests/e2e).
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
// The npm packages are those of the e2e test page (tests/e2e), so the project has one lockfile for them.
const packages = join(here, '..', '..', 'tests', 'e2e', 'node_modules');
const { build } = createRequire(join(packages, 'noop.js'))('esbuild');
const sources = ['main.jsx', 'index.html'].map((name) => readFileSync(join(here, name), 'utf8'));
const digest = createHash('sha256').update(sources.join('\n')).digest('hex');
const result = await build({
  entryPoints: [join(here, 'main.jsx')],
  bundle: true,
  minify: true,
  format: 'esm',
  jsx: 'automatic',
  define: { 'process.env.NODE_ENV': '"production"' },
  legalComments: 'none',
  nodePaths: [packages],
  write: false,
});
const bundle = result.outputFiles[0].text.replaceAll('</script', '<\\/script');
const page = `<!-- built by pydantic_ai_slim/chat-page/build.mjs; sources sha256 ${digest} -->\n` + sources[1].replace('/*BUNDLE*/', () => bundle);
writeFileSync(join(here, '..', 'pydantic_ai', '_chat', 'chat.html'), page);
