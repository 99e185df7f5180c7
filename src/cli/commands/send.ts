/** `paddock send ID TEXT`: types TEXT and Enter into the agent's terminal, through the core send operation. */
import { sendToAgent } from '../../core/operations/send';
import { defineCommand } from '../support/args';
import { openStore } from '../support/store';

export const sendCommand = defineCommand({
  name: 'send',
  usage: 'paddock send ID TEXT',
  summary: "Type TEXT and Enter into the agent's terminal.",
  options: {},
  positionals: ['ID', 'TEXT'],
  async run({ positionals: [id, text] }, ctx) {
    await sendToAgent(openStore(ctx), id, text);
    return 0;
  },
});

export default sendCommand;
