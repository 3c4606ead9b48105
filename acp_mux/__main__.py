from acp_mux.cli import main

raise SystemExit(main())
