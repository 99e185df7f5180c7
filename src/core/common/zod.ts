/**
 * The project's one way in to zod: `zod/mini`, whose schemas are plain
 * functions over small objects (no method closures per schema), so the
 * bundles are smaller and load and idle leaner than with classic `zod`.
 * Import it as `import * as z from '../common/zod'`, never `zod` itself
 * (eslint refuses that), so the setup below runs before any schema parses.
 *
 * zod/mini loads no locale: without one every issue would read "Invalid
 * input". Issue messages reach people ("unreadable: …", CLI and socket
 * errors), so the English locale is installed here — as classic zod does,
 * only when no other code in the process (VS Code's extension host is shared)
 * installed one first.
 */
import * as z from 'zod/mini';

if (!z.config().localeError) z.config(z.locales.en());

export * from 'zod/mini';
