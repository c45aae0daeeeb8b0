"""Start-up migration: Alembic is loaded only when the database is behind the newest revision."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from alembic.script import ScriptDirectory

from roost.storage.migrate import alembic_config, head_revision, stored_revision

CHECK = """
import sys
from roost.storage.migrate import upgrade
upgrade(sys.argv[1])
print("alembic" in sys.modules)
"""


def test_the_head_is_the_one_alembic_finds() -> None:
    scripts = ScriptDirectory.from_config(alembic_config("sqlite://"))
    assert head_revision() == scripts.get_current_head()


def test_alembic_runs_for_a_new_database_and_is_skipped_once_it_is_current(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'fresh.db'}"
    assert stored_revision(url) is None

    def upgrade_in_a_new_process() -> str:
        done = subprocess.run([sys.executable, "-c", CHECK, url], capture_output=True, text=True, check=True)
        return done.stdout.strip()

    assert upgrade_in_a_new_process() == "True"  # created: Alembic ran
    assert stored_revision(url) == head_revision()
    assert upgrade_in_a_new_process() == "False"  # current: not even imported


def test_a_database_behind_the_head_is_upgraded(tmp_path: Path) -> None:
    from alembic import command

    url = f"sqlite:///{tmp_path / 'old.db'}"
    command.upgrade(alembic_config(url), "0011")
    assert stored_revision(url) == "0011"
    done = subprocess.run([sys.executable, "-c", CHECK, url], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "True"
    assert stored_revision(url) == head_revision()
