"""The modal screens over a mode's screen: a question (confirm, predict, jump), a view to read
(info, timeline, an exploration's progress and outcomes), the script editor and the scenario
picker. They sit below the mode screens, the scenario runs and the widgets, which push them."""
