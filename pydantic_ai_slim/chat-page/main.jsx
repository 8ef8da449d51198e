// The chat page of `Agent.to_web()`: useChat against /api/chat, streaming text, tool calls with their results,
// and Approve / Deny (with a reason) for calls that need approval. The conversation is kept in localStorage,
// so a reload while approvals are pending shows the same buttons, and answering them resumes the run.
import { useChat } from '@ai-sdk/react';
import { lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';

const STORAGE_KEY = 'pydantic-ai-chat-messages';

function savedMessages() {
  try {
    return JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '[]');
  } catch {
    return [];
  }
}

function toolName(part) {
  return part.type === 'dynamic-tool' ? part.toolName : part.type.replace(/^tool-/, '');
}

function callText(part) {
  const args = Object.entries(part.input ?? {}).map(([key, value]) => `${key}=${JSON.stringify(value)}`);
  return `${toolName(part)}(${args.join(', ')})`;
}

function Approval({ part, respond }) {
  const [reason, setReason] = useState('');
  const id = part.toolCallId;
  return (
    <div className="approval">
      <button className="approve" data-testid={`approve-${id}`} onClick={() => respond({ id: part.approval.id, approved: true })}>
        Approve
      </button>
      <input data-testid={`reason-${id}`} placeholder="Reason to deny (optional)" value={reason} onChange={(e) => setReason(e.target.value)} />
      <button
        className="deny"
        data-testid={`deny-${id}`}
        onClick={() => respond({ id: part.approval.id, approved: false, reason: reason || undefined })}
      >
        Deny
      </button>
    </div>
  );
}

const STATES = {
  'input-streaming': 'calling…',
  'input-available': 'running…',
  'approval-requested': 'needs your approval',
  'approval-responded': 'answered',
  'output-available': 'done',
  'output-denied': 'denied',
  'output-error': 'failed',
};

function ToolPart({ part, respond }) {
  const output = part.state === 'output-available' ? part.output : part.state === 'output-error' ? part.errorText : null;
  return (
    <div className="tool" data-tool-call-id={part.toolCallId} data-state={part.state}>
      <span className="state">{STATES[part.state] ?? part.state}</span>
      <code>{callText(part)}</code>
      {output !== null && (
        <span className="output">{typeof output === 'string' ? output : JSON.stringify(output)}</span>
      )}
      {part.state === 'output-denied' && part.approval?.reason && (
        <span className="output">Denied: {part.approval.reason}</span>
      )}
      {part.state === 'approval-requested' && <Approval part={part} respond={respond} />}
    </div>
  );
}

function Message({ message, respond }) {
  return (
    <div className={`message ${message.role}`}>
      {message.parts.map((part, index) => {
        if (part.type === 'text') {
          return (
            <p key={index} className="text">
              {part.text}
            </p>
          );
        }
        if (part.type.startsWith('tool-') || part.type === 'dynamic-tool') {
          return <ToolPart key={index} part={part} respond={respond} />;
        }
        return null;
      })}
    </div>
  );
}

function Chat() {
  const { messages, setMessages, sendMessage, addToolApprovalResponse, status, error } = useChat({
    id: 'pydantic-ai-chat',
    messages: savedMessages(),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const [input, setInput] = useState('');
  useEffect(() => {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(messages));
  }, [messages]);
  const busy = status === 'submitted' || status === 'streaming';
  return (
    <main data-status={status}>
      <header>
        <h1>Chat</h1>
        <button data-testid="new-chat" onClick={() => setMessages([])} disabled={busy}>
          New chat
        </button>
      </header>
      {messages.map((message) => (
        <Message key={message.id} message={message} respond={addToolApprovalResponse} />
      ))}
      {busy && <p className="status">Working on it…</p>}
      {error && <p className="error">{error.message}</p>}
      <form
        className="ask"
        onSubmit={(e) => {
          e.preventDefault();
          if (input.trim()) {
            sendMessage({ text: input });
            setInput('');
          }
        }}
      >
        <div>
          <input data-testid="prompt" placeholder="Ask something…" value={input} onChange={(e) => setInput(e.target.value)} />
          <button type="submit" data-testid="send" disabled={busy}>
            Send
          </button>
        </div>
      </form>
    </main>
  );
}

createRoot(document.getElementById('root')).render(<Chat />);
