"""Remote play: two tables play one game over the event's broker (docs/remote-play.md).

- ``invitation``: the invitation code both tables hold, the game id and the two sides'
  signing keys derived from it;
- ``messages``: what the two sides say (hello, turn, refused, offline), read strictly;
- ``game``: ``RemoteGame``, one table's side (its turns out, the other's in, every message
  checked), and ``RemotePlayer``, the other seat as the session's computer seat plays it;
- ``connection``: ``RemoteConnection``, the link to the broker (paho-mqtt).

Used module by module (``from homeworlds.remote.game import RemoteGame``).
"""
