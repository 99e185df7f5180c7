/**
 * The manifest's user-visible strings live in package.nls.json (the English
 * bundle), so the Marketplace and VS Code can localize them: every one is a
 * `%key%` reference, and every reference has its text.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
const bundle = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.nls.json'), 'utf8')) as Record<string, string>;

/** Keys whose string values a person reads (in the Marketplace, the palette, the views, Settings). */
const VISIBLE = new Set(['displayName', 'description', 'markdownDescription', 'title', 'name', 'contextualTitle', 'contents', 'category', 'label']);
/** Keys whose value is a list of visible strings (a setting's enum descriptions). */
const VISIBLE_LISTS = new Set(['enumDescriptions', 'markdownEnumDescriptions']);

/** [json path, value] of every visible string in the manifest. */
function visibleStrings(value: unknown, at: string, out: [string, string][] = []): [string, string][] {
  if (Array.isArray(value)) value.forEach((v, i) => visibleStrings(v, `${at}[${i}]`, out));
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (typeof v === 'string' && VISIBLE.has(key)) out.push([`${at}.${key}`, v]);
      else if (VISIBLE_LISTS.has(key) && Array.isArray(v)) v.forEach((item, i) => typeof item === 'string' && out.push([`${at}.${key}[${i}]`, item]));
      else visibleStrings(v, `${at}.${key}`, out);
    }
  }
  return out;
}

describe('package.json ↔ package.nls.json', () => {
  const strings = visibleStrings({ displayName: manifest.displayName, description: manifest.description, capabilities: manifest.capabilities, contributes: manifest.contributes }, '');

  it('finds the visible strings (commands, views, settings, walkthrough)', () => {
    assert.ok(strings.length > 60, `only ${strings.length} visible strings found`);
  });

  it('every visible string is a %key% reference', () => {
    const literal = strings.filter(([, v]) => !/^%[\w.-]+%$/.test(v));
    assert.deepEqual(literal, [], 'visible manifest strings not in package.nls.json');
  });

  it('every reference has its English text, and the bundle has no unused keys', () => {
    const used = new Set(strings.map(([, v]) => v.slice(1, -1)));
    assert.deepEqual([...used].filter((k) => typeof bundle[k] !== 'string' || bundle[k] === ''), []);
    assert.deepEqual(Object.keys(bundle).filter((k) => !used.has(k)), []);
  });
});
