"""Every `roost` command says what it does, what each option means, and shows an example (issue 18)."""

from __future__ import annotations

import click

from roost.cli import main


def commands(group: click.Group, path: str = "roost") -> list[tuple[str, click.Command]]:
    found: list[tuple[str, click.Command]] = []
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            found += commands(command, f"{path} {name}")
        else:
            found.append((f"{path} {name}", command))
    return found


def test_every_command_has_help_an_example_and_help_for_each_option() -> None:
    problems = []
    for path, command in commands(main):
        text = f"{command.help or ''}\n{command.epilog or ''}"
        if not (command.help or "").strip():
            problems.append(f"{path}: no help text")
        if "example" not in text.lower() or path.split()[-1] not in text:
            problems.append(f"{path}: no example that runs it")
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden and not (param.help or "").strip():
                problems.append(f"{path} {param.opts[0]}: no help text")
    assert problems == []
