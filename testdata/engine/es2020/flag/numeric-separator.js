// want: numeric separators (1_000)
return 1_000_000;
