from tuitune.cli import main

raise SystemExit(main())
