from acp_mux.launcher.entry import main

raise SystemExit(main())
