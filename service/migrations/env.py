"""Alembic environment: run with the connection :func:`service.db.upgrade` hands over."""

from alembic import context
from sqlalchemy import create_engine

from service.models import Base

config = context.config
conn = config.attributes.get("connection")
if conn is None:  # `alembic -x url=...` from a shell
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option("sqlalchemy.url")
    with create_engine(url).begin() as conn:
        context.configure(connection=conn, target_metadata=Base.metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
else:
    context.configure(connection=conn, target_metadata=Base.metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
