"""A simulated machine for the approval demo, and the tools an agent uses on it.

Nothing here touches a real process or file: `Machine` is an in-memory model of a small server where a
stray development server holds port 8080. It behaves like the real thing in the ways that make the task
exploratory: the first SIGTERM only makes the server drain its connections, and its service manager
restarts it when it exits, so each step depends on what the previous one revealed.

`MachineToolset` decides per call how much approval each call needs (`SupportsNeedsApproval`) and
describes calls in words (`SupportsApprovalDescription`); `ApprovalToolset` applies those decisions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic_ai import RunContext
from pydantic_ai.toolsets import FunctionToolset

from .policy import ApprovalConfig, ApprovalResult, ToolApprovalConfig, needs_approval_from_config

__all__ = (
    'MACHINE_CONFIG',
    'PROTECTED_PATHS',
    'Machine',
    'MachineToolset',
    'Process',
    'Service',
    'kill_process',
    'list_ports',
    'ps',
    'read_file',
    'remove_path',
    'restart_service',
    'stop_service',
)

PROTECTED_PATHS = ('/', '/boot', '/etc', '/home', '/usr', '/var', '/var/lib', '/var/log', '/var/run')
"""Paths whose removal is blocked: deleting them would break the machine."""

_SECRET_PREFIXES = ('/etc/shadow', '/root/.ssh', '/home/alice/.ssh')

MACHINE_CONFIG: ApprovalConfig = {
    'list_ports': ToolApprovalConfig(pre_approved=True),
    'ps': ToolApprovalConfig(pre_approved=True),
    'read_file': ToolApprovalConfig(pre_approved=True),
}
"""Read-only tools run without asking; every other tool needs approval unless `MachineToolset` blocks it."""

Signal = Literal['TERM', 'KILL']


@dataclass
class Process:
    """A running process."""

    pid: int
    """Its process id."""
    name: str
    """Its short name, as `ps` shows it."""
    user: str
    """The user it runs as."""
    command: str
    """Its command line."""
    port: int | None = None
    """The TCP port it listens on, if any."""
    unit: str | None = None
    """The service that started it, if any."""
    graceful: bool = False
    """Whether the first SIGTERM only starts draining connections (a second one, or SIGKILL, ends it)."""
    draining: bool = False
    """Whether it got a first SIGTERM and is draining."""


@dataclass
class Service:
    """A service managed by the init system."""

    name: str
    """The unit name without `.service`."""
    process_name: str
    """The short name of its process."""
    command: str
    """The command it runs."""
    port: int | None = None
    """The port its process listens on."""
    active: bool = True
    """Whether it is running (and restarting its process when it exits)."""
    graceful: bool = False
    """Whether its process drains on the first SIGTERM."""


def _demo_processes() -> dict[int, Process]:
    dev = 'node /srv/devserver/server.js --port 8080 --log /var/log/devserver.log'
    processes = [
        Process(1, 'init', 'root', '/sbin/init'),
        Process(812, 'nginx', 'www-data', 'nginx: master process /usr/sbin/nginx', port=80, unit='nginx'),
        Process(977, 'postgres', 'postgres', '/usr/lib/postgresql/16/bin/postgres', port=5432, unit='postgresql'),
        Process(4242, 'node', 'alice', dev, port=8080, unit='devserver', graceful=True),
    ]
    return {process.pid: process for process in processes}


def _demo_services(processes: dict[int, Process]) -> dict[str, Service]:
    return {
        p.unit: Service(p.unit, p.name, p.command, port=p.port, graceful=p.graceful)
        for p in processes.values()
        if p.unit
    }


def _demo_files() -> dict[str, str]:
    return {
        '/var/log/devserver.log': (
            '09:12:01 devserver listening on :8080 (pid 4242)\n'
            '11:47:33 warn: 3 requests stuck for over 600s, event loop lagging\n'
        ),
        '/var/run/devserver.pid': '4242\n',
        '/etc/systemd/system/devserver.service': (
            '[Service]\nExecStart=/usr/bin/node /srv/devserver/server.js --port 8080\nRestart=always\n'
        ),
        '/etc/shadow': 'root:$6$...\n',
    }


@dataclass
class Machine:
    """The simulated machine: processes, services and files, all in memory."""

    processes: dict[int, Process] = field(default_factory=_demo_processes)
    """Running processes by pid."""
    services: dict[str, Service] = field(default_factory=dict[str, Service])
    """Services by name."""
    files: dict[str, str] = field(default_factory=_demo_files)
    """File contents by path."""
    next_pid: int = 4318
    """The pid the next started process gets."""
    changes: list[str] = field(default_factory=list[str])
    """Every change made to the machine, in order."""

    def __post_init__(self) -> None:
        if not self.services:
            self.services = _demo_services(self.processes)

    def port_holder(self, port: int) -> Process | None:
        """The process listening on `port`, if any."""
        return next((p for p in self.processes.values() if p.port == port), None)

    def signal(self, pid: int, signal: Signal) -> dict[str, Any]:
        """Send `signal` to process `pid`; its service restarts it if it exits while the service is active."""
        process = self.processes.get(pid)
        if process is None:
            return {'pid': pid, 'error': f'no process with pid {pid}'}
        if signal == 'TERM' and process.graceful and not process.draining:
            process.draining = True
            self._log(process, 'received SIGTERM: draining connections, send SIGTERM again to exit now')
            self.changes.append(f'SIGTERM to {pid}: draining')
            return {'pid': pid, 'signal': signal, 'exited': False, 'state': 'draining connections'}
        del self.processes[pid]
        self.changes.append(f'SIG{signal} to {pid}: exited')
        self._respawn(process)
        return {'pid': pid, 'signal': signal, 'exited': True}

    def stop_service(self, name: str) -> dict[str, Any]:
        """Stop service `name` and its process."""
        service = self.services.get(name)
        if service is None:
            return {'service': name, 'error': f'no service named {name!r}'}
        service.active = False
        stopped = [pid for pid, p in self.processes.items() if p.unit == name]
        for pid in stopped:
            del self.processes[pid]
        self.changes.append(f'stopped service {name}')
        return {'service': name, 'active': False, 'stopped_pids': stopped}

    def restart_service(self, name: str) -> dict[str, Any]:
        """Restart service `name`: its process is replaced by a new one."""
        if name not in self.services:
            return {'service': name, 'error': f'no service named {name!r}'}
        self.stop_service(name)
        service = self.services[name]
        service.active = True
        pid = self._start(service)
        self.changes.append(f'restarted service {name}')
        return {'service': name, 'active': True, 'pid': pid}

    def remove(self, path: str, recursive: bool) -> dict[str, Any]:
        """Remove a file, or with `recursive` everything under a directory."""
        prefix = path.rstrip('/') + '/'
        doomed = [p for p in self.files if p == path or (recursive and p.startswith(prefix))]
        for doomed_path in doomed:
            del self.files[doomed_path]
        self.changes.append(f'removed {path}')
        return {'path': path, 'removed': doomed}

    def _respawn(self, process: Process) -> None:
        service = self.services.get(process.unit or '')
        if service is not None and service.active:
            pid = self._start(service)
            self.changes.append(f'{service.name} restarted its process as {pid}')

    def _start(self, service: Service) -> int:
        pid, self.next_pid = self.next_pid, self.next_pid + 1
        self.processes[pid] = Process(
            pid,
            service.process_name,
            'alice',
            service.command,
            port=service.port,
            unit=service.name,
            graceful=service.graceful,
        )
        return pid

    def _log(self, process: Process, line: str) -> None:
        if process.unit == 'devserver':
            self.files['/var/log/devserver.log'] += f'12:00:00 {line}\n'


# The tools. Each returns a dict, so results look the same to a real model (as JSON) and to the scripted one.


def list_ports(ctx: RunContext[Machine]) -> list[dict[str, Any]]:
    """List the TCP ports something listens on, with the process holding each."""
    held = sorted((p for p in ctx.deps.processes.values() if p.port is not None), key=lambda p: p.port or 0)
    return [{'port': p.port, 'pid': p.pid, 'process': p.name} for p in held]


def ps(ctx: RunContext[Machine], pid: int) -> dict[str, Any]:
    """Show a process: its user, command line, service and state."""
    process = ctx.deps.processes.get(pid)
    if process is None:
        return {'pid': pid, 'error': f'no process with pid {pid}'}
    state = 'draining connections' if process.draining else 'running'
    return {'pid': pid, 'user': process.user, 'command': process.command, 'service': process.unit, 'state': state}


def read_file(ctx: RunContext[Machine], path: str) -> dict[str, Any]:
    """Read a text file."""
    content = ctx.deps.files.get(path)
    return {'path': path, 'content': content} if content is not None else {'path': path, 'error': 'no such file'}


def kill_process(ctx: RunContext[Machine], pid: int, signal: Signal = 'TERM') -> dict[str, Any]:
    """Send a signal to a process: TERM asks it to stop, KILL ends it at once."""
    return ctx.deps.signal(pid, signal)


def stop_service(ctx: RunContext[Machine], name: str) -> dict[str, Any]:
    """Stop a service and its process; it stays stopped."""
    return ctx.deps.stop_service(name)


def restart_service(ctx: RunContext[Machine], name: str) -> dict[str, Any]:
    """Restart a service: its process is stopped and started again."""
    return ctx.deps.restart_service(name)


def remove_path(ctx: RunContext[Machine], path: str, recursive: bool = False) -> dict[str, Any]:
    """Delete a file, or a directory and everything in it with `recursive` (like `rm -rf`)."""
    return ctx.deps.remove(path, recursive)


_REASONS = {
    'kill_process': 'it signals a running process',
    'stop_service': 'it stops a service',
    'restart_service': 'it restarts a service',
    'remove_path': 'it deletes files',
}


class MachineToolset(FunctionToolset[Machine]):
    """The machine's tools, with a per-call approval policy and descriptions in words."""

    def __init__(self) -> None:
        """Register the tools."""
        tools = [list_ports, ps, read_file, kill_process, stop_service, restart_service, remove_path]
        super().__init__(tools, id='machine')

    def needs_approval(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], config: ApprovalConfig
    ) -> ApprovalResult:
        """Start from the config, then block what would break the machine or leak secrets."""
        verdict = needs_approval_from_config(name, config)
        if name == 'remove_path' and _normalize(tool_args['path']) in PROTECTED_PATHS:
            return ApprovalResult.blocked(f'{tool_args["path"]} is a protected system path.')
        if name == 'read_file' and str(tool_args['path']).startswith(_SECRET_PREFIXES):
            return ApprovalResult.blocked(f'{tool_args["path"]} holds secrets.')
        if name == 'kill_process' and tool_args['pid'] == 1:
            return ApprovalResult.blocked('PID 1 is the init system; killing it takes the machine down.')
        if verdict.is_needs_approval and verdict.reason is None:
            return ApprovalResult.needs_approval(_REASONS.get(name, 'it changes the machine'))
        return verdict

    def get_approval_description(self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any]) -> str:
        """Say what the call does, naming the process it affects."""
        machine: Machine = ctx.deps
        if name == 'kill_process':
            process = machine.processes.get(tool_args['pid'])
            target = f'{process.name}, run by {process.user}' if process else 'no such process'
            return f'Send SIG{tool_args.get("signal", "TERM")} to PID {tool_args["pid"]} ({target})'
        if name in ('stop_service', 'restart_service'):
            return f'{"Stop" if name == "stop_service" else "Restart"} the {tool_args["name"]}.service unit'
        if name == 'remove_path':
            return f'Delete {tool_args["path"]}{" and everything under it" if tool_args.get("recursive") else ""}'
        return f'{name}({", ".join(f"{k}={v!r}" for k, v in tool_args.items())})'


def _normalize(path: object) -> str:
    text = str(path).rstrip('/')
    return text or '/'
