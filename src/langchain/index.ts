// Entry `agent-recourse/langchain`: middleware for LangChain's `createAgent` (optional peer `langchain` >= 1).
export type {
  AnswerMessage,
  FallbackModel,
  LangChainMiddlewareOptions,
  ToolCallOptions,
} from './recourse-middleware.js';
export { recourseMiddleware } from './recourse-middleware.js';
export type { ModelFailure, ServedModel } from './served-metadata.js';
