"""One Screen per mode (free play, a lesson, a challenge) and the dialogs over them."""
