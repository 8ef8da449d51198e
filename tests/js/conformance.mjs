// Drives the adapter's server with the AI SDK v6 client code: the SDK's own transport fetches and validates each
// chunk against its chunk schema, and readUIMessageStream folds the chunks into the assistant message, through a
// first request that asks for approvals and a follow-up that approves one call and denies the other.
// usage: node conformance.mjs BASE_URL PACKAGE  (PACKAGE: ai-oldest or ai-newest). Prints the result as JSON.
const [baseUrl, pkg] = process.argv.slice(2);
const ai = await import(pkg);

async function send(messages) {
  const transport = new ai.DefaultChatTransport({ api: `${baseUrl}/chat` });
  const stream = await transport.sendMessages({
    chatId: 'conformance',
    messages,
    abortSignal: undefined,
    trigger: 'submit-message',
    messageId: undefined,
  });
  const last = messages[messages.length - 1];
  let message;
  const errors = [];
  for await (const snapshot of ai.readUIMessageStream({
    message: last.role === 'assistant' ? last : undefined,
    stream,
    terminateOnError: true,
    onError: (error) => errors.push(String(error)),
  })) {
    message = snapshot;
  }
  if (errors.length) throw new Error(errors.join('; '));
  return structuredClone(message);
}

const userMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'delete a.txt and b.txt' }] };
const asked = await send([userMessage]);
const answered = structuredClone(asked);
for (const part of answered.parts) {
  if (part.state !== 'approval-requested') continue;
  const approved = part.toolCallId === 'call_a';
  part.state = 'approval-responded';
  part.approval = { id: part.approval.id, approved, ...(approved ? {} : { reason: 'keep b' }) };
}
const readyToSend = ai.lastAssistantMessageIsCompleteWithApprovalResponses({ messages: [userMessage, answered] });
const finished = await send([userMessage, answered]);
const valid = await ai.safeValidateUIMessages({ messages: [userMessage, finished] });
console.log(JSON.stringify({ asked, readyToSend, finished, valid: valid.success }));
