module example.com/tree/adapters/ad

go 1.26
