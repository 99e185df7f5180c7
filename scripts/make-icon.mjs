// Renders the extension's Marketplace icon (media/icon.png, 256×256) from the
// repository's own artwork (media/paddock.svg) with Debian's Chromium.
// Run by hand after changing the artwork: node scripts/make-icon.mjs
import { chromium } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const svg = readFileSync(resolve(root, 'media/paddock.svg'), 'utf8').replace('stroke="currentColor"', 'stroke="#f4efe1"').replaceAll('fill="currentColor"', 'fill="#f2b53c"');
const html = `<html><body style="margin:0;background:transparent">
<div style="width:256px;height:256px;border-radius:48px;background:#2f5d3a;display:flex;align-items:center;justify-content:center">
<div style="width:184px;height:184px">${svg.replace('width="24" height="24"', 'width="184" height="184"')}</div></div></body></html>`;
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: ['--no-sandbox'] });
const page = await browser.newPage({ viewport: { width: 256, height: 256 } });
await page.setContent(html);
await page.screenshot({ path: resolve(root, 'media/icon.png'), omitBackground: true });
await browser.close();
console.log('wrote media/icon.png');
