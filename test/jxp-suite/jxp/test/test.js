const path = require("path");

var model_dir = process.env.MODEL_DIR
	? path.resolve(process.cwd(), process.env.MODEL_DIR)
	: path.join(process.cwd(), "dist/models");
const testMod = require(path.join(model_dir, "test_model"));
const Test = testMod.default || testMod;

var chai = require('chai');
var chaiHttp = require('chai-http');
var should = chai.should();

var init = require("./init");
var mongoose = require("mongoose");

var server = require("../dist/bin/server");

chai.use(chaiHttp);

const pause = ms => new Promise(res => setTimeout(res, ms));

function waitForMongo(timeoutMs) {
	timeoutMs = timeoutMs || 15000;
	return new Promise((resolve, reject) => {
		if (mongoose.connection.readyState === 1) return resolve();
		const timer = setTimeout(() => {
			reject(
				new Error(
					`MongoDB not available (${process.env.MONGO_CONNECTION_STRING || "see MONGO_CONNECTION_STRING"}). ` +
						"Start MongoDB before running integration tests."
				)
			);
		}, timeoutMs);
		mongoose.connection.once("open", () => {
			clearTimeout(timer);
			resolve();
		});
		mongoose.connection.once("error", (err) => {
			clearTimeout(timer);
			reject(err);
		});
	});
}

describe('Test', () => {
	before(async function () {
		this.timeout(15000);
		await waitForMongo();
		await init.init();
	})

	beforeEach(async function () {
		await pause(0);
	})


	var apikey = null;
	var token = null;
	var refresh_token = null;
	var user_id = null;
	var objectid = null;

	describe("login", () => {
		it("it should login", (done) => {
			chai.request(server)
				.post("/login")
				.send({ email: init.email, password: init.password })
				.end((err, res) => {
					res.should.have.status(200);
					res.body.should.have.property('user_id');
					res.body.should.have.property('apikey');
					res.body.should.have.property('token');
					res.body.should.have.property('token_expires');
					res.body.should.have.property('refresh_token');
					res.body.should.have.property('refresh_token_expires');
					res.body.should.have.property('provider');
					const expectedProvider = process.env.API_URL || process.env.API_SERVER
						|| `http://localhost:${process.env.PORT || "4005"}`;
					res.body.provider.should.be.eql(expectedProvider);
					apikey = res.body.apikey;
					token = res.body.token;
					user_id = res.body.user_id;
					done();
				});
		});
	});

	describe("logout", () => {
		it("should logout", done => {
			chai.request(server)
				.get("/login/logout")
				.set("Authorization", `Bearer ${token}`)
				.end((err, res) => {
					res.should.have.status(200);
					done();
				});
		})
	})

	describe("logged_out", () => {
		it("should have an expired token", done => {
			chai.request(server)
				.get("/api/test")
				.set("Authorization", `Bearer ${token}`)
				.end((err, res) => {
					res.should.have.status(403);
					done();
				});
		})
	})

	describe("login_again", () => {
		it("it should login again with the same api key but a new token", (done) => {
			chai.request(server)
				.post("/login")
				.send({ email: init.email, password: init.password })
				.end((err, res) => {
					res.should.have.status(200);
					res.body.should.have.property('user_id');
					res.body.should.have.property('apikey');
					res.body.should.have.property('token');
					res.body.should.have.property('token_expires');
					res.body.apikey.should.be.eql(apikey);
					res.body.token.should.not.eql(token);
					token = res.body.token;
					refresh_token = res.body.refresh_token;
					done();
				});
		});
	});

	describe("refresh_token", () => {
		it("it should refresh the token", (done) => {
			chai.request(server)
				.post("/refresh")
				.set("Authorization", `Bearer ${refresh_token}`)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.should.have.property('user_id');
					res.body.should.have.property('token');
					res.body.should.have.property('token_expires');
					res.body.should.have.property('refresh_token');
					res.body.should.have.property('refresh_token_expires');
					res.body.token.should.not.eql(token);
					res.body.refresh_token.should.not.eql(refresh_token);
					token = res.body.token;
					refresh_token = res.body.refresh_token;
					done();
				});
		});
	});

	describe("Authentication", () => {
		it("should authenticate with basic auth", done => {
			chai.request(server)
				.get("/api/user?limit=1000")
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data.should.be.an('array');
					done();
				});
		});
		it("should authenticate with a token", done => {
			chai.request(server)
				.get("/api/user?limit=1000")
				.set("Authorization", `Bearer ${token}`)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data.should.be.an('array');
					done();
				});
		})
		it("should authenticate with an API key in the header", done => {
			chai.request(server)
				.get("/api/user?limit=1000")
				.set("X-API-Key", apikey)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data.should.be.an('array');
					done();
				});
		})
		it("should authenticate with an API key in the url", done => {
			chai.request(server)
				.get(`/api/user?apikey=${apikey}&limit=1000`)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data.should.be.an('array');
					done();
				});
		})
		it("should fail authenticate without any auth methods", done => {
			chai.request(server)
				.get(`/api/user`)
				.end((err, res) => {
					res.should.have.status(403);
					done();
				});
		})
	})

	describe("/GET test", () => {
		it("it should GET all the tests", (done) => {
			Test.deleteMany(() => {
				chai.request(server)
					.get("/api/test?limit=1000")
					// .auth(init.email, init.password)
					.end((err, res) => {
						res.should.have.status(200);
						res.body.data.should.be.an('array');
						res.body.data.length.should.be.eql(0);
						done();
					});
			});
		});
	});

	describe("/GET test count", () => {
		it("it should count all the tests", (done) => {
			Test.deleteMany(() => {
				chai.request(server)
					.get("/count/test")
					.end((err, res) => {
						res.should.have.status(200);
						res.body.count.should.be.eql(0);
						done();
					});
			});
		});
	});

	var post_id = null;
	describe("/POST test", () => {
		it("it should POST a new test", (done) => {
			var test = {
				foo: "Foo",
				bar: "Bar",
				yack: { yack: "yack", shmack: 1 },
				shmack: ["do", "ray", "me"],
				password: "password",
				fulltext: "In Xanadu did Kubla Khan a stately pleasure dome decree",
			};
			chai.request(server)
				.post("/api/test")
				.auth(init.email, init.password)
				.send(test)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data.should.be.an('object');
					res.body.data.should.have.property("_id");
					res.body.data.should.have.property("foo");
					res.body.data.should.have.property("bar");
					res.body.data.should.have.property("yack").which.should.be.an("object");
					res.body.data.should.have.property("shmack");
					res.body.data.shmack.should.be.an("array");
					res.body.data.foo.should.be.a("string");
					res.body.data.bar.should.be.a("string");
					res.body.data.foo.length.should.be.eql(3);
					res.body.data.foo.length.should.not.be.eql("password");
					post_id = res.body.data._id;
					done();
				});
		});

		it("it should POST a test with string_array", (done) => {
			var test = {
				foo: "FooArray",
				bar: "BarArray",
				string_array: ["one", "two", "three"]
			};
			chai.request(server)
				.post("/api/test")
				.auth(init.email, init.password)
				.send(test)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data.should.be.an('object');
					res.body.data.should.have.property("string_array");
					res.body.data.string_array.should.be.an("array");
					res.body.data.string_array.should.have.length(3);
					res.body.data.string_array[0].should.equal("one");
					res.body.data.string_array[1].should.equal("two");
					res.body.data.string_array[2].should.equal("three");
					done();
				});
		});
	});

	describe("/GET test count", () => {
		it("it should count all the tests", (done) => {
			chai.request(server)
				.get("/count/test")
				.end((err, res) => {
					res.should.have.status(200);
					res.body.count.should.be.eql(2);
					done();
				});
		});
	});

	describe("/PUT test", () => {
		it("it should PUT a new test", (done) => {
			var test = {
				foo: "Foo1",
			};
			chai.request(server)
				.put("/api/test/" + post_id)
				.send(test)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data.should.be.an('object');
					res.body.data.should.have.property("_id");
					res.body.data.should.have.property("foo")
					res.body.data.foo.should.eql("Foo1");
					res.body.data._updated_by_id.should.eql(user_id);
					done();
				});
		});
	});

	describe("Search test", () => {
		it("it should search all the tests", (done) => {
			chai.request(server)
				.get("/api/test?search=Xanadu&limit=1000")
				// .auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data.should.be.a('array');
					res.body.data.length.should.be.eql(1);
					res.body.data[0].score.should.be.a("number");
					done();
				});
		});
	});

	describe("Date filtering", () => {
		let dateTestId;
		const testDate = new Date('2024-03-20T10:00:00.000Z');

		before(async () => {
			// Create a test record with a known date
			const test = new Test({
				foo: "DateTest",
				bar: "DateTestBar",
				date_field: testDate
			});
			const saved = await test.save();
			dateTestId = saved._id;
		});

		it("should filter by exact date", (done) => {
			chai.request(server)
				.get(`/api/test?filter[date_field]=${testDate.toISOString()}&limit=1000`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data.should.be.an('array');
					res.body.data.length.should.be.eql(1);
					res.body.data[0]._id.should.equal(dateTestId.toString());
					done();
				});
		});

		it("should filter by date range using array syntax", (done) => {
			const startDate = new Date(testDate);
			startDate.setDate(startDate.getDate() - 1);
			const endDate = new Date(testDate);
			endDate.setDate(endDate.getDate() + 1);

			chai.request(server)
				.get(`/api/test?filter[date_field]=$gte:${startDate.toISOString()}&filter[date_field]=$lte:${endDate.toISOString()}&limit=1000`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data.should.be.an('array');
					res.body.data.length.should.be.eql(1);
					res.body.data[0]._id.should.equal(dateTestId.toString());
					done();
				});
		});

		it("should filter by date range using operator syntax", (done) => {
			const startDate = new Date(testDate);
			startDate.setDate(startDate.getDate() - 1);
			const endDate = new Date(testDate);
			endDate.setDate(endDate.getDate() + 1);

			chai.request(server)
				.get(`/api/test?filter[date_field]=$gte:${startDate.toISOString()}&filter[date_field]=$lte:${endDate.toISOString()}&limit=1000`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data.should.be.an('array');
					res.body.data.length.should.be.eql(1);
					res.body.data[0]._id.should.equal(dateTestId.toString());
					done();
				});
		});

		it("should handle invalid date formats gracefully", (done) => {
			chai.request(server)
				.get('/api/test?filter[date_field]=invalid-date&limit=1000')
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(500);
					res.body.should.have.property('code', 'InternalServer');
					done();
				});
		});

		it("should return empty array for dates outside range", (done) => {
			const futureDate = new Date(testDate);
			futureDate.setFullYear(futureDate.getFullYear() + 1);

			chai.request(server)
				.get(`/api/test?filter[date_field]=${futureDate.toISOString()}&limit=1000`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data.should.be.an('array');
					res.body.data.length.should.be.eql(0);
					done();
				});
		});
	});

	describe("/GET test", () => {
		it("it should GET a single test contained in a data object", (done) => {
			chai.request(server)
				.get("/api/test/" + post_id)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.should.have.property("data");
					res.body.data.should.be.an('object');
					res.body.data.should.have.property("_id");
					res.body.data.should.have.property("foo")
					res.body.data.foo.should.eql("Foo1");
					done();
				});
		});
	});

	describe("Link test", () => {
		var link_id = null;
		it("should add a LINK item", done => {
			let data = {
				name: "name1",
				val: "val1"
			}
			chai.request(server)
				.post("/api/link")
				.auth(init.email, init.password)
				.send(data)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data.should.be.an('object');
					res.body.data.should.have.property("_id");
					res.body.data.should.have.property("name")
					res.body.data.name.should.eql("name1");
					link_id = res.body.data._id;
					done();
				});
		});
		it("should link a LINK item to a TEST", done => {
			chai.request(server)
				.put("/api/test/" + post_id)
				.auth(init.email, init.password)
				.send({ link_id })
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data.should.be.an('object');
					res.body.data.should.have.property("link_id")
					res.body.data.link_id.should.eql(link_id);
					done();
				});
		});
		var other_link_id = null;
		it("should add another LINK item", done => {
			let data = {
				name: "name2",
				val: "val2"
			}
			chai.request(server)
				.post("/api/link")
				.auth(init.email, init.password)
				.send(data)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data.should.be.an('object');
					res.body.data.should.have.property("_id");
					res.body.data.should.have.property("name")
					res.body.data.name.should.eql("name2");
					other_link_id = res.body.data._id;
					done();
				});
		});
		it("should link another LINK item to a TEST", done => {
			chai.request(server)
				.put("/api/test/" + post_id)
				.auth(init.email, init.password)
				.send({ other_link_id })
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data.should.be.an('object');
					res.body.data.should.have.property("other_link_id")
					res.body.data.other_link_id.should.eql(other_link_id);
					done();
				});
		});
		it("should non-descructively autopopulate on a single record", done => {
			chai.request(server)
				.get(`/api/test/${post_id}?populate=link`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.should.have.property("data");
					res.body.data.should.have.property("link");
					res.body.data.link.should.be.an('object');
					res.body.data.link.name.should.eql("name1");
					res.body.data.link.val.should.eql("val1");
					res.body.data.should.have.property("link_id");
					res.body.data.link_id.should.be.eql(link_id);
					done();
				});
		});
		it("should non-descructively autopopulate on a single record to a specific virtual", done => {
			chai.request(server)
				.get(`/api/test/${post_id}?populate=other_link`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.should.have.property("data");
					res.body.data.should.have.property("other_link")
					res.body.data.other_link.should.be.an('object');
					res.body.data.other_link.name.should.eql("name2");
					res.body.data.other_link.val.should.eql("val2");
					res.body.data.should.have.property("link_id");
					res.body.data.other_link_id.should.be.eql(other_link_id);
					done();
				});
		});
		it("should autopopulate on all records", done => {
			chai.request(server)
				.get(`/api/test?autopopulate=true&limit=1000`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data[0].should.have.property("link")
					res.body.data[0].link.should.be.an('object');
					res.body.data[0].link.name.should.eql("name1");
					res.body.data[0].link.val.should.eql("val1");
					res.body.data[0].should.have.property("other_link")
					res.body.data[0].other_link.should.be.an('object');
					res.body.data[0].other_link.name.should.eql("name2");
					res.body.data[0].other_link.val.should.eql("val2");
					done();
				});
		});
		it("should autopopulate on a single records", done => {
			chai.request(server)
				.get(`/api/test/${post_id}?autopopulate=true`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data.should.have.property("link")
					res.body.data.link.should.be.an('object');
					res.body.data.link.name.should.eql("name1");
					res.body.data.link.val.should.eql("val1");
					res.body.data.should.have.property("other_link")
					res.body.data.other_link.should.be.an('object');
					res.body.data.other_link.name.should.eql("name2");
					res.body.data.other_link.val.should.eql("val2");
					done();
				});
		});
		it("should non-destructively populate link on a single record", done => {
			chai.request(server)
				.get(`/api/test/${post_id}?populate=link`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.should.have.property("data");
					res.body.data.should.have.property("link")
					res.body.data.link.should.be.an('object');
					res.body.data.link.name.should.eql("name1");
					res.body.data.link.val.should.eql("val1");
					res.body.data.link_id.should.be.eql(link_id);
					done();
				});
		});
		it("should populate link_id on all records", done => {
			chai.request(server)
				.get(`/api/test?populate=link&limit=1000`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data[0].should.have.property("link")
					res.body.data[0].link.should.be.an('object');
					res.body.data[0].link.name.should.eql("name1");
					res.body.data[0].link.val.should.eql("val1");
					res.body.data[0].link_id.should.be.eql(link_id);
					done();
				});
		});
		it("should populate just val from link_id on a single record", done => {
			chai.request(server)
				.get(`/api/test/${post_id}?populate[link]=val`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.should.have.property("data");
					res.body.data.link.should.have.property("val")
					res.body.data.link.should.not.have.property("name")
					res.body.data.link.should.be.an('object');
					res.body.data.link.val.should.eql("val1");
					done();
				});
		});
		it("should populate just val from link_id on all records", done => {
			chai.request(server)
				.get(`/api/test?populate[link]=val&limit=1000`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data[0].link.should.have.property("val")
					res.body.data[0].link.should.not.have.property("name")
					res.body.data[0].link.val.should.eql("val1");
					done();
				});
		});
		it("should populate name and val from link_id on a single record", done => {
			chai.request(server)
				.get(`/api/test/${post_id}?populate[link]=val,name`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.should.have.property("data");
					res.body.data.link.should.have.property("val")
					res.body.data.link.should.have.property("name")
					res.body.data.link.should.be.an('object');
					res.body.data.link.val.should.eql("val1");
					done();
				});
		});
		it("should populate name and val from link_id on all records", done => {
			chai.request(server)
				.get(`/api/test?populate[link]=val,name&limit=1000`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data[0].link.should.have.property("val")
					res.body.data[0].link.should.have.property("name")
					res.body.data[0].link.val.should.eql("val1");
					done();
				});
		});
		it("should populate link_id and other_link_id on a single record", done => {
			chai.request(server)
				.get(`/api/test/${post_id}?populate[]=link&populate[]=other_link`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.should.have.property("data");
					res.body.data.should.have.property("link")
					res.body.data.link.should.be.an('object');
					res.body.data.link.name.should.eql("name1");
					res.body.data.link.val.should.eql("val1");
					res.body.data.should.have.property("other_link");
					res.body.data.other_link.should.be.an('object');
					res.body.data.other_link.name.should.eql("name2");
					res.body.data.other_link.val.should.eql("val2");
					done();
				});
		});
		it("should populate link_id and other_link_id on all records", done => {
			chai.request(server)
				.get(`/api/test?populate[]=link&populate[]=other_link&limit=1000`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data[0].link.should.have.property("val")
					res.body.data[0].link.should.have.property("name")
					res.body.data[0].link.val.should.eql("val1");
					res.body.data[0].other_link.should.have.property("val")
					res.body.data[0].other_link.should.have.property("name")
					res.body.data[0].other_link.val.should.eql("val2");
					done();
				});
		});
		it("should link an array of links to TEST", done => {
			chai.request(server)
				.put("/api/test/" + post_id)
				.auth(init.email, init.password)
				.send({ array_link_id: [link_id, other_link_id] })
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data.should.be.an('object');
					res.body.data.should.have.property("array_link_id")
					res.body.data.array_link_id.should.be.an("array");
					res.body.data.array_link_id.should.have.length(2);
					done();
				});
		});
		it("should populate an array of links", done => {
			chai.request(server)
				.get(`/api/test?populate=array_link&limit=1000`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data[0].should.have.property("array_link");
					res.body.data[0].array_link.should.be.an("array");
					res.body.data[0].array_link.should.have.length(2);
					res.body.data[0].array_link[0].should.be.an("object");
					res.body.data[0].array_link[0].val.should.eql("val1");
					done();
				});
		});
		describe("/POST query", () => {
			it("it should POST a complex query", (done) => {
				var query = {
					"$and": [
						{
							"foo": {
								"$regex": "foo",
								"$options": "i"
							}
						},
						{
							"bar": "Bar"
						}
					]
				};
				chai.request(server)
					.post("/query/test?limit=1000")
					.auth(init.email, init.password)
					.send({ query })
					.end((err, res) => {
						res.should.have.status(200);
						res.body.data.should.be.an('array');
						res.body.data[0].should.have.property("_id");
						res.body.data[0].should.have.property("foo");
						res.body.data[0].should.have.property("bar");
						res.body.data[0].should.have.property("yack").which.should.be.an("object");
						res.body.data[0].should.have.property("shmack");
						res.body.data[0].shmack.should.be.an("array");
						res.body.data[0].foo.should.be.a("string");
						res.body.data[0].bar.should.be.a("string");
						res.body.data[0].foo.should.eql("Foo1");
						res.body.data[0].bar.should.eql("Bar");
						objectid = res.body.data[0]._id;
						done();
					});
			});
		});
		describe("/POST aggregate", () => {
			it("it should POST an aggregate query", (done) => {
				var query = [
					{ $group: { _id: null, count: { $sum: 1 } } }
				];
				chai.request(server)
					.post("/aggregate/test")
					.auth(init.email, init.password)
					.send({ query })
					.end((err, res) => {
						res.should.have.status(200);
						res.body.data.should.be.an('array');
						res.body.data[0].should.have.property("_id");
						res.body.data[0].should.have.property("count");
						res.body.data[0].count.should.eql(3);
						done();
					});
			});
		});
		describe("/POST aggregate", () => {
			it("it should POST an aggregate query but not embedded in query", (done) => {
				var query = [
					{ $group: { _id: null, count: { $sum: 1 } } }
				];
				chai.request(server)
					.post("/aggregate/test")
					.auth(init.email, init.password)
					.send(query)
					.end((err, res) => {
						res.should.have.status(200);
						res.body.data.should.be.an('array');
						res.body.data[0].should.have.property("_id");
						res.body.data[0].should.have.property("count");
						res.body.data[0].count.should.eql(3);
						done();
					});
			});
		});
		describe("/POST aggregate", () => {
			it("it should POST an aggregate query with calculated Date", (done) => {
				var query = [
					{
						$match: {
							"createdAt": {
								"$gte": "new Date(\"2020-01-01\")"
							}
						}
					},
					{ $group: { _id: null, count: { $sum: 1 } } }
				];
				chai.request(server)
					.post("/aggregate/test")
					.auth(init.email, init.password)
					.send({ query })
					.end((err, res) => {
						res.should.have.status(200);
						res.body.data.should.be.an('array');
						res.body.data[0].should.have.property("_id");
						res.body.data[0].should.have.property("count");
						res.body.data[0].count.should.eql(3);
						done();
					});
			});
		});
		describe("/POST aggregate", () => {
			it("it should POST an aggregate query with calculated relative_date", (done) => {
				var query = [
					{
						$match: {
							"createdAt": {
								"$gte": "relative_date(-1, \"days\")",
								"$lte": "relative_date(null, null, null, \"month\")",
							}
						}
					},
					{ $group: { _id: null, count: { $sum: 1 } } }
				];
				chai.request(server)
					.post("/aggregate/test")
					.auth(init.email, init.password)
					.send({ query })
					.end((err, res) => {
						res.should.have.status(200);
						res.body.data.should.be.an('array');
						res.body.data[0].should.have.property("_id");
						res.body.data[0].should.have.property("count");
						res.body.data[0].count.should.eql(3);
						done();
					});
			});
		});
		describe("/POST aggregate", () => {
			it("it should POST an aggregate query with calculated ObjectId", (done) => {
				var query = [
					{
						$match: {
							"_id": `ObjectId("${objectid}")`
						}
					},
					{ $group: { _id: null, count: { $sum: 1 } } }
				];
				chai.request(server)
					.post("/aggregate/test")
					.auth(init.email, init.password)
					.send({ query })
					.end((err, res) => {
						res.should.have.status(200);
						res.body.data.should.be.an('array');
						res.body.data[0].should.have.property("_id");
						res.body.data[0].should.have.property("count");
						res.body.data[0].count.should.eql(1);
						done();
					});
			});
		});
		describe("/POST aggregate", () => {
			it("it should POST an aggregate $in of ObjectId() strings", (done) => {
				var query = [
					{
						$match: {
							"_id": { $in: [`ObjectId("${objectid}")`] }
						}
					},
					{ $group: { _id: null, count: { $sum: 1 } } }
				];
				chai.request(server)
					.post("/aggregate/test")
					.auth(init.email, init.password)
					.send({ query })
					.end((err, res) => {
						res.should.have.status(200);
						res.body.data.should.be.an('array');
						res.body.data[0].should.have.property("count");
						res.body.data[0].count.should.eql(1);
						done();
					});
			});
		});
		describe("/POST aggregate", () => {
			it("it should POST an aggregate query with a $oid wrapper", (done) => {
				var query = [
					{
						$match: {
							"_id": { "$oid": objectid }
						}
					},
					{ $group: { _id: null, count: { $sum: 1 } } }
				];
				chai.request(server)
					.post("/aggregate/test")
					.auth(init.email, init.password)
					.send({ query })
					.end((err, res) => {
						res.should.have.status(200);
						res.body.data.should.be.an('array');
						res.body.data[0].should.have.property("count");
						res.body.data[0].count.should.eql(1);
						done();
					});
			});
		});
		describe("/POST aggregate", () => {
			it("it should POST an aggregate $in of $oid wrappers", (done) => {
				var query = [
					{
						$match: {
							"_id": { $in: [{ "$oid": objectid }] }
						}
					},
					{ $group: { _id: null, count: { $sum: 1 } } }
				];
				chai.request(server)
					.post("/aggregate/test")
					.auth(init.email, init.password)
					.send({ query })
					.end((err, res) => {
						res.should.have.status(200);
						res.body.data.should.be.an('array');
						res.body.data[0].should.have.property("count");
						res.body.data[0].count.should.eql(1);
						done();
					});
			});
		});
		describe("/POST aggregate", () => {
			it("it should POST an aggregate query with a $date wrapper", (done) => {
				var query = [
					{
						$match: {
							"date_field": { "$gte": { "$date": "2024-03-20T00:00:00.000Z" } }
						}
					},
					{ $group: { _id: null, count: { $sum: 1 } } }
				];
				chai.request(server)
					.post("/aggregate/test")
					.auth(init.email, init.password)
					.send({ query })
					.end((err, res) => {
						res.should.have.status(200);
						res.body.data.should.be.an('array');
						res.body.data[0].should.have.property("count");
						res.body.data[0].count.should.be.gte(1);
						done();
					});
			});
		});
		describe("/POST aggregate allowDiskUse", () => {
			it("it should POST an aggregate query with allowDiskUse", (done) => {
				var query = [
					{ $group: { _id: null, count: { $sum: 1 } } }
				];
				chai.request(server)
					.post("/aggregate/test?allowDiskUse=true")
					.auth(init.email, init.password)
					.send({ query })
					.end((err, res) => {
						res.should.have.status(200);
						res.body.data.should.be.an('array');
						res.body.data[0].should.have.property("_id");
						res.body.data[0].should.have.property("count");
						res.body.data[0].count.should.eql(3);
						done();
					});
			});
		});
		describe("/POST bulkwrite", () => {
			it("it should make sure we are set up right", done => {
				chai.request(server)
					.get("/api/test?limit=1000&count=true")
					.auth(init.email, init.password)
					.end((err, res) => {
						res.should.have.status(200);
						res.body.data.should.be.an('array');
						res.body.data[0].should.have.property("foo");
						res.body.data[0].foo.should.eql("Foo1");
						res.body.should.have.property("count");
						res.body.count.should.eql(3);
						done();
					});
			})
			it("it should bulkwrite", (done) => {
				const query = [
					{
						"insertOne": {
							"document": {
								"foo": "Foo2",
								"bar": "Bar2",
								"yack": { "yack": "yack2", "shmack": 2 },
							}
						},
					},
					{
						"updateOne": {
							"filter": {
								"foo": "Foo1"
							},
							"update": {
								"$set": {
									"foo": "Foo bulk updated"
								}
							}
						}
					},
					{
						"updateOne": {
							"filter": {
								"foo": "Foo3"
							},
							"update": {
								"foo": "Foo3",
								"bar": "Bar3",
								"yack": { "yack": "yack3", "shmack": 3 },
							},
							"upsert": true
						},
					}
				];
				chai.request(server)
					.post("/bulkwrite/test")
					.auth(init.admin_email, init.admin_password)
					.send(query)
					.end((err, res) => {
						res.should.have.status(200);
						res.body.data.should.be.an('object');
						res.body.data.should.have.property("ok");
						res.body.data.ok.should.eql(1);
						res.body.data.nInserted.should.eql(1);
						res.body.data.nUpserted.should.eql(1);
						res.body.data.nMatched.should.eql(1);
						res.body.data.nModified.should.eql(1);
						done();
					});
			});
			it("it should test bulkwrite", (done) => {
				chai.request(server)
					.get("/api/test?sort[createdAt]=1&limit=1000&count=true")
					.auth(init.email, init.password)
					.end((err, res) => {
						res.should.have.status(200);
						res.body.data.should.be.an('array');
						res.body.data[0].should.have.property("foo");
						res.body.data[0].foo.should.eql("Foo bulk updated");
						res.body.data[1].should.have.property("foo");
						res.body.data[2].should.have.property("foo");
						res.body.should.have.property("count");
						res.body.count.should.eql(5);
						done();
					});
			});
			it("allows admin bulkwrite on models without bulkwrite opt-in", (done) => {
				const query = [
					{
						insertOne: {
							document: { name: "Bulk link", val: "bulk-val" },
						},
					},
				];
				chai.request(server)
					.post("/bulkwrite/link")
					.auth(init.admin_email, init.admin_password)
					.send(query)
					.end((err, res) => {
						res.should.have.status(200);
						res.body.data.should.be.an("object");
						res.body.data.should.have.property("ok");
						res.body.data.ok.should.eql(1);
						done();
					});
			});
			it("allows non-admin updateOne without upsert when user has update", (done) => {
				const query = [
					{
						updateOne: {
							filter: { foo: "Foo bulk updated" },
							update: { $set: { foo: "Foo user bulk updated" } },
						},
					},
				];
				chai.request(server)
					.post("/bulkwrite/test")
					.auth(init.email, init.password)
					.send(query)
					.end((err, res) => {
						res.should.have.status(200);
						res.body.data.should.be.an("object");
						res.body.data.should.have.property("ok");
						res.body.data.ok.should.eql(1);
						done();
					});
			});
			it("rejects non-admin bulkwrite when model has no bulkwrite opt-in", (done) => {
				const query = [
					{
						updateOne: {
							filter: { name: "Bulk link" },
							update: { $set: { val: "nope" } },
						},
					},
				];
				chai.request(server)
					.post("/bulkwrite/link")
					.auth(init.email, init.password)
					.send(query)
					.end((err, res) => {
						res.should.have.status(403);
						res.body.should.have.property("message");
						res.body.message.should.match(/disabled for model link/);
						done();
					});
			});
			it("rejects non-admin deleteOne without delete permission", (done) => {
				const query = [{ deleteOne: { filter: { foo: "Foo3" } } }];
				chai.request(server)
					.post("/bulkwrite/test")
					.auth(init.email, init.password)
					.send(query)
					.end((err, res) => {
						res.should.have.status(403);
						done();
					});
			});
		});
		// it("should $push to an array", done => {
		// 	chai.request(server)
		// 		.patch("/api/test/" + post_id)
		// 		.auth(init.email, init.password)
		// 		.send({ $push: { shmack: "fah" } })
		// 		.end((err, res) => {
		// 			// console.log(res.body.data);
		// 			res.should.have.status(200);
		// 			res.body.data.should.be.an('object');
		// 			res.body.data.should.have.property("shmack")
		// 			res.body.data.shmack.should.be.an("array");
		// 			res.body.data.shmack.should.have.length(4);
		// 			done();
		// 		});
		// });
	});

	describe("Models", () => {
		it("it should get all the model definitions", (done) => {
			chai.request(server)
				.get("/model")
				// .auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.should.be.a('array');
					done();
				});
		});
	});

	describe("Mixed Array Tests", () => {
		it("should save complex objects in mixed_array", (done) => {
			const complexData = {
				foo: "MixedArrayTest",
				bar: "MixedArrayBar",
				mixed_array: [
					{
						nested: {
							prop1: "value1",
							prop2: 123,
							prop3: true
						},
						array: [1, 2, 3],
						date: new Date("2024-03-20T10:00:00Z")
					},
					["array", "of", "strings"],
					42,
					{ simple: "object" },
					null,
					new Date("2024-03-21"),
					[
						{
							foo: "bar",
							bar: "foo"
						},
						{
							foo: "baz",
							bar: "baz"
						}
					]
				]
			};

			chai.request(server)
				.post("/api/test")
				.auth(init.email, init.password)
				.send(complexData)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data.should.be.an('object');
					res.body.data.should.have.property("mixed_array");
					res.body.data.mixed_array.should.be.an("array");
					res.body.data.mixed_array.should.have.length(7);

					// Verify first object with nested properties
					res.body.data.mixed_array[0].should.have.property("nested");
					res.body.data.mixed_array[0].nested.prop1.should.equal("value1");
					res.body.data.mixed_array[0].nested.prop2.should.equal(123);
					res.body.data.mixed_array[0].nested.prop3.should.equal(true);
					res.body.data.mixed_array[0].array.should.deep.equal([1, 2, 3]);

					// Verify array of strings
					res.body.data.mixed_array[1].should.deep.equal(["array", "of", "strings"]);

					// Verify number
					res.body.data.mixed_array[2].should.equal(42);

					// Verify simple object
					res.body.data.mixed_array[3].should.have.property("simple");
					res.body.data.mixed_array[3].simple.should.equal("object");

					// Verify null
					should.equal(res.body.data.mixed_array[4], null);

					// Verify dates are stored as ISO strings
					res.body.data.mixed_array[0].date.should.be.a("string");
					res.body.data.mixed_array[5].should.be.a("string");
					res.body.data.mixed_array[6].should.be.a("array");
					res.body.data.mixed_array[6][0].should.have.property("foo");
					res.body.data.mixed_array[6][0].foo.should.equal("bar");
					res.body.data.mixed_array[6][1].should.have.property("foo");
					res.body.data.mixed_array[6][1].foo.should.equal("baz");
					done();
				});
		});

		it("should retrieve and maintain complex objects in mixed_array", (done) => {
			// First create a test document
			const testData = {
				foo: "MixedArrayRetrieveTest",
				bar: "RetrieveBar",
				mixed_array: [
					{
						deep: { nested: { object: true } },
						array: [[1, 2], [3, 4]],
					},
					Buffer.from("Hello World").toString("base64"),
					new RegExp("test").toString()
				]
			};

			let testId;

			chai.request(server)
				.post("/api/test")
				.auth(init.email, init.password)
				.send(testData)
				.end((err, res) => {
					res.should.have.status(200);
					testId = res.body.data._id;

					// Now retrieve and verify
					chai.request(server)
						.get(`/api/test/${testId}`)
						.auth(init.email, init.password)
						.end((err, res) => {
							res.should.have.status(200);
							res.body.data.mixed_array[0].deep.nested.object.should.equal(true);
							res.body.data.mixed_array[0].array.should.deep.equal([[1, 2], [3, 4]]);
							res.body.data.mixed_array[1].should.be.a("string");
							res.body.data.mixed_array[2].should.equal("/test/");
							done();
						});
				});
		});
	});

	describe("Delete", () => {
		it("should soft-delete an item", (done) => {
			chai.request(server)
				.del(`/api/test/${post_id}`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.status.should.equal('ok');
					done();
				});
		});
		it("should show item as deleted", (done) => {
			chai.request(server)
				.get(`/api/test/${post_id}`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(404);
					res.body.message.should.equal(`Document ${post_id} is deleted on Test`);
					res.body.code.should.equal('NotFound');
					done();
				});
		});
		it("should show item", (done) => {
			chai.request(server)
				.get(`/api/test/${post_id}?showDeleted=1`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data._deleted.should.equal(true);
					res.body.data.bar.should.equal("Bar");
					done();
				});
		});
		it("should undeleted item", (done) => {
			chai.request(server)
				.put(`/api/test/${post_id}`)
				.send({
					_deleted: false
				})
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.status.should.equal('ok');
					done();
				});
		});
		it("should show item", (done) => {
			chai.request(server)
				.get(`/api/test/${post_id}`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data._deleted.should.equal(false);
					res.body.data.bar.should.equal("Bar");
					done();
				});
		});
		it("should permanently delete item", (done) => {
			chai.request(server)
				.del(`/api/test/${post_id}?_permaDelete=1`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.status.should.equal('ok');
					done();
				});
		});
		it("should fail to find item", (done) => {
			chai.request(server)
				.get(`/api/test/${post_id}?showDeleted=1`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(404);
					done();
				});
		});
		let link_id = null;
		let test_with_links_id = null;
		it("should add a LINK item", done => {
			let data = {
				name: "deltest_name",
				val: "deltest_val",
				bar: "Gloop"
			}
			chai.request(server)
				.post("/api/link")
				.auth(init.email, init.password)
				.send(data)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data.should.be.an('object');
					res.body.data.should.have.property("_id");
					res.body.data.should.have.property("name")
					res.body.data.name.should.eql("deltest_name");
					link_id = res.body.data._id;
					done();
				});
		});
		it("should link a LINK item to a TEST", done => {
			chai.request(server)
				.post("/api/test")
				.auth(init.email, init.password)
				.send({
					link_id
				})
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data.should.be.an('object');
					res.body.data.should.have.property("link_id")
					res.body.data.link_id.should.eql(link_id);
					test_with_links_id = res.body.data._id;
					done();
				});
		});
		it("should fail because a parent item exists", (done) => {
			chai.request(server)
				.del(`/api/link/${link_id}`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(409);
					res.body.message.should.equal(`Parent link item exists in test/link_id`);
					done();
				});
		});
		it("should cascade delete", (done) => {
			chai.request(server)
				.del(`/api/link/${link_id}?_cascade=1`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.status.should.equal('ok');
					done();
				});
		});
		it("link item should no longer exist", (done) => {
			chai.request(server)
				.get(`/api/test/${test_with_links_id}`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(404);
					res.body.message.should.equal(`Document ${test_with_links_id} is deleted on Test`);
					done();
				});
		});
		it("link item should be soft-deleted", (done) => {
			chai.request(server)
				.get(`/api/test/${test_with_links_id}?showDeleted=1`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					done();
				});
		});
		it("should add a LINK item", done => {
			let data = {
				name: "permdeltest_name",
				val: "permdeltest_val",
				bar: "Yoop"
			}
			chai.request(server)
				.post("/api/link")
				.auth(init.email, init.password)
				.send(data)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data.should.be.an('object');
					res.body.data.should.have.property("_id");
					res.body.data.should.have.property("name")
					res.body.data.name.should.eql("permdeltest_name");
					link_id = res.body.data._id;
					done();
				});
		});
		it("should link a LINK item to a TEST", done => {
			chai.request(server)
				.post("/api/test")
				.auth(init.email, init.password)
				.send({
					link_id,
					bar: "link1"
				})
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data.should.be.an('object');
					res.body.data.should.have.property("link_id")
					res.body.data.link_id.should.eql(link_id);
					test_with_links_id = res.body.data._id;
					done();
				});
		});
		it("should fail because a parent item exists", (done) => {
			chai.request(server)
				.del(`/api/link/${link_id}`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(409);
					res.body.message.should.equal(`Parent link item exists in test/link_id`);
					done();
				});
		});
		it("should cascade delete", (done) => {
			chai.request(server)
				.del(`/api/link/${link_id}?_cascade=1&_permaDelete=1`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.status.should.equal('ok');
					done();
				});
		});
		it("link item should be permanently deleted", (done) => {
			chai.request(server)
				.get(`/api/test/${test_with_links_id}?showDeleted=1`)
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(404);
					done();
				});
		});
	});

	describe("/Filter with +", () => {
		it("it should POST a user with a + in email", (done) => {
			var user = {
				name: "Plus User",
				email: "plus+user@gmail.com"
			};
			chai.request(server)
				.post("/api/user")
				.auth(init.admin_email, init.admin_password)
				.send(user)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data.should.have.property("_id");
					done();
				});
		});
		it("it should GET a user with a + in email", (done) => {
			chai.request(server)
				.get("/api/user?filter[email]=plus%2Buser@gmail.com&limit=1000")
				.auth(init.admin_email, init.admin_password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.data[0].should.have.property("_id");
					done();
				});
		});
	});

	describe("Error Handling", () => {
		it("should get an error", (done) => {
			chai.request(server)
				.post("/api/test")
				.auth(init.email, init.password)
				.send({
					error: true,
					bar: "Throw an error"
				})
				.end((err, res) => {
					res.should.have.status(418);
					res.body.message.should.equal(`I'm a teapot`);
					done();
				});
		})
	});

	describe("Caching", () => {
		it("should reject cache stats without auth", (done) => {
			chai.request(server)
				.get("/cache/stats")
				.end((err, res) => {
					res.should.have.status(403);
					res.body.message.should.match(/not logged in/i);
					done();
				});
		});
		it("should give us cache stats", (done) => {
			chai.request(server)
				.get("/cache/stats")
				.auth(init.admin_email, init.admin_password)
				.end((err, res) => {
					// console.log(res.body);
					res.should.have.status(200);
					res.body.should.have.property("hits");
					done();
				});
		})
		it("should clear the cache stats", (done) => {
			chai.request(server)
				.get("/cache/clear")
				.auth(init.admin_email, init.admin_password)
				.end((err, res) => {
					// console.log(res.body);
					res.should.have.status(200);
					done();
				});
		});
		it("should get an uncached request", (done) => {
			chai.request(server)
				.get("/api/test?limit=1000")
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.headers.should.have.property("jxp-cache");
					res.headers["jxp-cache"].should.equal("miss");
					done();
				});
		});
		it("should get an cached request", (done) => {
			chai.request(server)
				.get("/api/test?limit=1000")
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.headers.should.have.property("jxp-cache");
					res.headers["jxp-cache"].should.equal("hit");
					done();
				});
		});
		it("should give us cache stats", (done) => {
			chai.request(server)
				.get("/cache/stats")
				.auth(init.admin_email, init.admin_password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.should.have.property("hits");
					res.body.hits.should.be.greaterThan(0);
					res.body.misses.should.be.greaterThan(0);
					done();
				});
		})
	});
	describe("Cache invalidating", () => {
		let test_id;
		it("should get a test record", done => {
			chai.request(server)
				.get(`/api/test?populate=link&limit=1`)
				.auth(init.email, init.password)
				.end((err, res) => {
					// console.log(res.headers)
					res.should.have.status(200);
					res.body.data[0].should.have.property("_id");
					test_id = res.body.data[0]._id;
					res.body.data[0].should.have.property("link");
					should.equal(res.body.data[0].link, null);
					res.headers["jxp-cache"].should.equal("miss");
					done();
				});
		});
		it("should get a cached test record", done => {
			chai.request(server)
				.get(`/api/test?populate=link&limit=1`)
				.auth(init.email, init.password)
				.end((err, res) => {
					// console.log(res.headers)
					res.should.have.status(200);
					res.body.data[0].should.have.property("_id");
					res.headers["jxp-cache"].should.equal("hit");
					should.equal(res.body.data[0].link, null);
					done();
				});
		});
		let link_id;
		it("should add a link record", done => {
			chai.request(server)
				.post(`/api/link`)
				.auth(init.email, init.password)
				.send({
					name: "cache_test",
					val: "YoYoYo"
				})
				.end((err, res) => {
					// console.log(res.body)
					res.should.have.status(200);
					res.body.data.should.have.property("_id");
					link_id = res.body.data._id;
					done();
				});
		});
		it("should put link_id into test record", done => {
			chai.request(server)
				.put(`/api/test/${test_id}`)
				.auth(init.admin_email, init.admin_password)
				.send({
					link_id
				})
				.end((err, res) => {
					// console.log(res.body)
					res.should.have.status(200);
					res.body.data.should.have.property("_id");
					res.body.data.link_id.should.equal(link_id);
					done();
				});
		});
		it("should get a test record with link", done => {
			chai.request(server)
				.get(`/api/test?populate=link&limit=1`)
				.auth(init.email, init.password)
				.end((err, res) => {
					// console.log(res.body)
					res.should.have.status(200);
					res.body.data[0].should.have.property("_id");
					res.body.data[0].should.have.property("link");
					res.body.data[0].link.should.not.equal(null);
					res.body.data[0].link._id.should.equal(link_id);
					res.body.data[0].link.name.should.equal("cache_test");
					res.body.data[0].link.val.should.equal("YoYoYo");
					res.headers["jxp-cache"].should.equal("miss");
					done();
				});
		});
		it("should update link record", done => {
			chai.request(server)
				.put(`/api/link/${link_id}`)
				.auth(init.admin_email, init.admin_password)
				.send({
					val: "YoYoYo2"
				})
				.end((err, res) => {
					// console.log(res.body)
					res.should.have.status(200);
					res.body.data.should.have.property("_id");
					res.body.data.val.should.equal("YoYoYo2");
					done();
				});
		});
		it("should get a test record with updated link", done => {
			chai.request(server)
				.get(`/api/test?populate=link&limit=1`)
				.auth(init.email, init.password)
				.end((err, res) => {
					// console.log(res.body.data[0].link)
					res.should.have.status(200);
					res.body.data[0].should.have.property("_id");
					res.body.data[0].should.have.property("link");
					res.body.data[0].link.should.not.equal(null);
					res.body.data[0].link._id.should.equal(link_id);
					res.body.data[0].link.name.should.equal("cache_test");
					res.body.data[0].link.val.should.equal("YoYoYo2");
					res.headers["jxp-cache"].should.equal("miss");
					done();
				});
		});
	});

	describe("query_limits", () => {
		it("applies default limit when list GET omits limit", (done) => {
			chai.request(server)
				.get("/api/test")
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.should.have.property("limit").eql(100);
					res.body.data.should.be.an("array");
					done();
				});
		});

		it("returns 200 for list GET with valid limit", (done) => {
			chai.request(server)
				.get("/api/test?limit=10")
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.should.have.property("limit").eql(10);
					res.body.data.should.be.an("array");
					done();
				});
		});

		it("caps limit when client requests above max", (done) => {
			chai.request(server)
				.get("/api/test?limit=5000")
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.should.have.property("limit").eql(1000);
					res.body.should.have.property("limit_capped").eql(true);
					res.body.data.should.be.an("array");
					done();
				});
		});

		it("applies default limit for filtered list GET without limit", (done) => {
			chai.request(server)
				.get("/api/test?filter[foo]=Foo1")
				.auth(init.email, init.password)
				.end((err, res) => {
					res.should.have.status(200);
					res.body.should.have.property("limit").eql(100);
					res.body.data.should.be.an("array");
					done();
				});
		});

		it("applies default limit for POST /query without limit", (done) => {
			chai.request(server)
				.post("/query/test")
				.auth(init.email, init.password)
				.send({ query: { foo: "Foo1" } })
				.end((err, res) => {
					res.should.have.status(200);
					res.body.should.have.property("limit").eql(100);
					done();
				});
		});

		it("returns 200 for POST /query with valid limit", (done) => {
			chai.request(server)
				.post("/query/test?limit=10")
				.auth(init.email, init.password)
				.send({ query: { foo: "Foo1" } })
				.end((err, res) => {
					res.should.have.status(200);
					res.body.should.have.property("limit").eql(10);
					done();
				});
		});
	});

	describe("MCP HTTP", function () {
		this.timeout(15000);

		var mcpAgent = null;

		function testListenPort() {
			return parseInt(process.env.PORT || "4005", 10);
		}

		function ensureListening(done) {
			if (server.address()) return done();
			const port = testListenPort();
			server.once("error", (err) => {
				if (err && err.code === "EADDRINUSE") return done();
				done(err);
			});
			server.listen(port, "127.0.0.1", () => done());
		}

		function mcpUrl() {
			const addr = server.address();
			const port = addr ? addr.port : testListenPort();
			const host =
				addr && addr.address !== "0.0.0.0" && addr.address !== "::"
					? addr.address
					: "127.0.0.1";
			return new URL("/mcp", `http://${host}:${port}/`);
		}

		before(function (done) {
			ensureListening(() => {
				mcpAgent = chai.request(server).keepOpen();
				done();
			});
		});

		after(function (done) {
			if (mcpAgent) mcpAgent.close(done);
			else done();
		});

		it("rejects unauthenticated MCP requests", (done) => {
			mcpAgent
				.post("/mcp")
				.send({ jsonrpc: "2.0", method: "initialize", id: 1 })
				.end((err, res) => {
					res.should.have.status(401);
					done();
				});
		});

		it("lists fixed MCP tools", async () => {
			const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
			const client = new Client({ name: "jxp-test", version: "1.0.0" });
			const transport = new StreamableHTTPClientTransport(mcpUrl(), {
				requestInit: { headers: { "X-API-Key": apikey } },
			});
			await client.connect(transport);
			const { tools } = await client.listTools();
			const names = tools.map((t) => t.name).sort();
			names.should.eql([
				"jxp_count",
				"jxp_describe_model",
				"jxp_export_csv",
				"jxp_find",
				"jxp_list_models",
			]);
			await transport.close();
		});

		it("jxp_list_models hides apikey", async () => {
			const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
			const client = new Client({ name: "jxp-test", version: "1.0.0" });
			const transport = new StreamableHTTPClientTransport(mcpUrl(), {
				requestInit: { headers: { "X-API-Key": apikey } },
			});
			await client.connect(transport);
			const result = await client.callTool({ name: "jxp_list_models", arguments: {} });
			const text = result.content.find((c) => c.type === "text")?.text || "[]";
			const models = JSON.parse(text);
			const slugs = models.map((m) => m.slug);
			slugs.should.include("test");
			slugs.should.not.include("apikey");
			await transport.close();
		});

		it("initialize returns server instructions", async () => {
			const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
			const client = new Client({ name: "jxp-test", version: "1.0.0" });
			const transport = new StreamableHTTPClientTransport(mcpUrl(), {
				requestInit: { headers: { "X-API-Key": apikey } },
			});
			await client.connect(transport);
			const instructions = client.getInstructions();
			instructions.should.be.a("string");
			instructions.should.include("jxp_list_models");
			instructions.should.include("jxp-guide");
			instructions.should.include("Test MCP env instructions append");
			await transport.close();
		});

		it("lists and reads jxp-guide resource", async () => {
			const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
			const client = new Client({ name: "jxp-test", version: "1.0.0" });
			const transport = new StreamableHTTPClientTransport(mcpUrl(), {
				requestInit: { headers: { "X-API-Key": apikey } },
			});
			await client.connect(transport);
			const { resources } = await client.listResources();
			const uris = resources.map((r) => r.uri);
			uris.should.include("jxp://guide");
			const { contents } = await client.readResource({ uri: "jxp://guide" });
			const text = contents.map((c) => c.text || "").join("\n");
			text.should.include("JXP MCP usage guide");
			text.should.include("TEST_APP_GUIDE_MARKER");
			await transport.close();
		});
	});
});
