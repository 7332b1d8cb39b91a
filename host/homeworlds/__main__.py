from homeworlds.cli import main

raise SystemExit(main())
