import { ANTHROPIC, describeFaults, OPENAI } from './fault-cases.js';

describeFaults(ANTHROPIC);
describeFaults(OPENAI);
