// want: AggregateError
return new AggregateError([], "x").message;
