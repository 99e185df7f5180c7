// Installs the Debian packages and the cached code-server the host tests and `npm start` need.
import { provision } from './lib/codeServer.mjs';
provision();
