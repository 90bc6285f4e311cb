extension EventRecorder: EventSink {}
