// A minimal useChat page: text parts, tool parts with Approve / Deny for pending approvals, and the
// conversation kept in localStorage so that a reload mid-approval shows the same pending buttons.
import { useChat } from '@ai-sdk/react';
import { lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';

const STORAGE_KEY = 'vercel-ai-e2e-messages';

function savedMessages() {
  try {
    return JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '[]');
  } catch {
    return [];
  }
}

function ToolPart({ part, respond }) {
  const [reason, setReason] = useState('');
  const id = part.toolCallId;
  return (
    <div className="tool" data-tool-call-id={id} data-state={part.state}>
      <code>
        {part.type.replace(/^tool-/, '')}({JSON.stringify(part.input)}): {part.state}
      </code>
      {part.state === 'approval-requested' && (
        <span>
          <button data-testid={`approve-${id}`} onClick={() => respond({ id: part.approval.id, approved: true })}>
            Approve
          </button>
          <input data-testid={`reason-${id}`} placeholder="reason" value={reason} onChange={(e) => setReason(e.target.value)} />
          <button
            data-testid={`deny-${id}`}
            onClick={() => respond({ id: part.approval.id, approved: false, reason: reason || undefined })}
          >
            Deny
          </button>
        </span>
      )}
      {part.state === 'output-available' && <span className="output"> {JSON.stringify(part.output)}</span>}
    </div>
  );
}

function Chat() {
  const { messages, sendMessage, addToolApprovalResponse, status, error } = useChat({
    id: 'e2e-chat',
    messages: savedMessages(),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const [input, setInput] = useState('');

  useEffect(() => {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(messages));
  }, [messages]);

  return (
    <main data-status={status}>
      {messages.map((message) => (
        <div key={message.id} className={`message ${message.role}`}>
          {message.parts.map((part, index) => {
            if (part.type === 'text') {
              return (
                <p key={index} className="text">
                  {part.text}
                </p>
              );
            }
            if (part.type.startsWith('tool-') || part.type === 'dynamic-tool') {
              return <ToolPart key={index} part={part} respond={addToolApprovalResponse} />;
            }
            return null;
          })}
        </div>
      ))}
      {error && <p className="error">{error.message}</p>}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          sendMessage({ text: input });
          setInput('');
        }}
      >
        <input data-testid="prompt" value={input} onChange={(e) => setInput(e.target.value)} />
        <button type="submit" data-testid="send">
          Send
        </button>
      </form>
    </main>
  );
}

createRoot(document.getElementById('root')).render(<Chat />);
