"""The spectator display served by the host (Starlette): the live table view, the archive
viewer and the attract mode. Starlette and uvicorn are optional (``pip install
'homeworlds-table[web]'``): modules here import them inside functions, so the table runs
without them."""
