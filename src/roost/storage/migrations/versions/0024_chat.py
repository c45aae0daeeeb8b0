"""chat: public keys, conversations, members, key versions, events and media of X Chat (issue 22)

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-06 10:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None

ROW_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "chat_public_keys",
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("version", sa.Text(), nullable=False),
        sa.Column("public_key", sa.Text(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("user_id", "version"),
    )
    with op.batch_alter_table("chat_public_keys", schema=None) as batch_op:
        batch_op.create_index("ix_chat_public_keys_user_created", ["user_id", "created_at"], unique=False)

    op.create_table(
        "chat_conversations",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("type", sa.Text(), nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.Column("creator_id", sa.BigInteger(), nullable=False),
        sa.Column("group_name", sa.Text(), nullable=True),
        sa.Column("group_avatar_url", sa.Text(), nullable=True),
        sa.Column("group_description", sa.Text(), nullable=True),
        sa.Column("ttl_msec", sa.BigInteger(), nullable=True),
        sa.Column("key_version", sa.Text(), nullable=True),
        sa.Column("key_event_id", sa.BigInteger(), nullable=True),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("updated_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )

    op.create_table(
        "chat_members",
        sa.Column("conversation_id", sa.Text(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("is_admin", sa.Integer(), server_default="0", nullable=False),
        sa.Column("joined_at", sa.BigInteger(), nullable=False),
        sa.Column("seen_until", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("conversation_id", "user_id"),
    )
    with op.batch_alter_table("chat_members", schema=None) as batch_op:
        batch_op.create_index("ix_chat_members_user", ["user_id", "conversation_id"], unique=False)

    op.create_table(
        "chat_events",
        sa.Column("id", ROW_ID, autoincrement=False, nullable=False),
        sa.Column("conversation_id", sa.Text(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("message_id", sa.Text(), nullable=False),
        sa.Column("sender_id", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("key_version", sa.Text(), nullable=True),
        sa.Column("conversation_token", sa.Text(), nullable=True),
        sa.Column("encoded_event", sa.Text(), nullable=False),
        sa.Column("signature", sa.Text(), nullable=True),
        sa.Column("previous_id", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("conversation_id", "message_id", name="uq_chat_events_message"),
    )
    with op.batch_alter_table("chat_events", schema=None) as batch_op:
        batch_op.create_index("ix_chat_events_conversation", ["conversation_id", "id"], unique=False)

    op.create_table(
        "chat_keys",
        sa.Column("conversation_id", sa.Text(), nullable=False),
        sa.Column("version", sa.Text(), nullable=False),
        sa.Column("event_id", sa.BigInteger(), nullable=False),
        sa.Column("participant_keys", sa.Text(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("conversation_id", "version"),
    )

    op.create_table(
        "chat_media",
        sa.Column("media_hash_key", sa.Text(), nullable=False),
        sa.Column("conversation_id", sa.Text(), nullable=False),
        sa.Column("upload_id", sa.BigInteger(), nullable=False),
        sa.Column("owner_id", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("media_hash_key"),
    )
    with op.batch_alter_table("chat_media", schema=None) as batch_op:
        batch_op.create_index("ix_chat_media_upload", ["upload_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("chat_media", schema=None) as batch_op:
        batch_op.drop_index("ix_chat_media_upload")
    op.drop_table("chat_media")
    op.drop_table("chat_keys")
    with op.batch_alter_table("chat_events", schema=None) as batch_op:
        batch_op.drop_index("ix_chat_events_conversation")
    op.drop_table("chat_events")
    with op.batch_alter_table("chat_members", schema=None) as batch_op:
        batch_op.drop_index("ix_chat_members_user")
    op.drop_table("chat_members")
    op.drop_table("chat_conversations")
    with op.batch_alter_table("chat_public_keys", schema=None) as batch_op:
        batch_op.drop_index("ix_chat_public_keys_user_created")
    op.drop_table("chat_public_keys")
