from acp_mux.cli.main import main

raise SystemExit(main())
