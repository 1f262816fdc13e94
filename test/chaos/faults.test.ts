import { ANTHROPIC, describeFaults, OPENAI, RESPONSES } from './fault-cases.js';

describeFaults(ANTHROPIC);
describeFaults(OPENAI);
describeFaults(RESPONSES);
