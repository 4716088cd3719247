"""Pure functions over the model; time is always passed in as `now`."""
