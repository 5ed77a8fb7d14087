UPDATE indexes SET state = 'retired' WHERE state = 'live'
