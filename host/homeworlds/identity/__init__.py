"""Who sent a message: per-table keys, signed messages (HMAC-SHA256) and replay windows
(docs/event.md, "Identity"). Pure standard library: the event's hub and tables use it, and
so can anything else that carries a table's messages (remote play)."""

from homeworlds.identity.signing import (
    BLOCK,
    ReplayError,
    ReplayWindow,
    SignatureError,
    SignedMessage,
    Signer,
    TableKey,
    open_signed,
    sign,
)

__all__ = ["BLOCK", "ReplayError", "ReplayWindow", "SignatureError", "SignedMessage",
           "Signer", "TableKey", "open_signed", "sign"]
