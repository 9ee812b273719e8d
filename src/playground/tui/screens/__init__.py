"""One Screen per mode: free play, a lesson, a challenge (their dialogs: tui/dialogs/)."""
