from acp_mux.cli.launch import main

raise SystemExit(main())
